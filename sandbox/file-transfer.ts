import type { SandboxFile } from '../src/domain/execution.js';
import { ThreadlabError } from '../src/domain/errors.js';
import type { RunnerConnection } from './runner-connection.js';
import type { FinalFrame } from './runner-protocol.js';

/** Bytes per put/read frame; base64 makes a frame about 5.6 MB. */
export const CHUNK_BYTES = 4 * 1024 * 1024;

function rejected(path: string, frame: FinalFrame): ThreadlabError {
  const message = frame.type === 'error' ? frame.message : `unexpected ${frame.type} frame`;
  if (frame.type === 'error' && frame.code === 'unsafe_path') {
    return new ThreadlabError('sandbox_file_rejected', `${path}: ${message}`, { isPolicy: true });
  }
  return new ThreadlabError('sandbox_protocol', `File transfer of ${path} failed: ${message}`);
}

/** Writes a file into the container's /mnt/data in chunks, so no frame holds the whole file. */
export async function putFile(connection: RunnerConnection, path: string, data: Buffer): Promise<SandboxFile> {
  let offset = 0;
  let last: FinalFrame | undefined;
  do {
    const chunk = data.subarray(offset, offset + CHUNK_BYTES);
    last = await connection.request({ op: 'put_file', path, base64: chunk.toString('base64'), append: offset > 0 });
    if (last.type !== 'ok' || !last.file) throw rejected(path, last);
    offset += chunk.length;
  } while (offset < data.length);
  if (last.type !== 'ok' || !last.file) throw rejected(path, last);
  return last.file;
}

/** Reads a file of the container in chunks; refuses files larger than `maxBytes`. */
export async function readFile(connection: RunnerConnection, path: string, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const frame = await connection.request({ op: 'read_file', path, offset, length: CHUNK_BYTES });
    if (frame.type !== 'file') throw rejected(path, frame);
    if (frame.size > maxBytes) {
      throw new ThreadlabError('sandbox_file_rejected', `${path} is larger than ${maxBytes} bytes.`, {
        isPolicy: true,
      });
    }
    const chunk = Buffer.from(frame.base64, 'base64');
    chunks.push(chunk);
    offset += chunk.length;
    if (offset > maxBytes) {
      // The runner shares its process with the user's code: never trust its size claims.
      throw new ThreadlabError('sandbox_file_rejected', `${path} is larger than ${maxBytes} bytes.`, {
        isPolicy: true,
      });
    }
    if (frame.eof || chunk.length === 0) break;
  }
  return Buffer.concat(chunks);
}
