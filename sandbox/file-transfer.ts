import type { SandboxFile } from '../src/domain/execution.js';
import { ThreadlabError } from '../src/domain/errors.js';
import type { RunnerConnection } from './runner-connection.js';
import type { FinalFrame } from './runner-protocol.js';

/**
 * Bytes per read frame. A chunk travels raw after its frame's line (no base64, no JSON string), so it costs
 * one Buffer outside V8's heap.
 */
export const CHUNK_BYTES = 4 * 1024 * 1024;

/** Bytes per put frame: raw as well, one request and its answer per MiB. */
export const PUT_CHUNK_BYTES = 1024 * 1024;

function rejected(path: string, frame: FinalFrame): ThreadlabError {
  const message = frame.type === 'error' ? frame.message : `unexpected ${frame.type} frame`;
  if (frame.type === 'error' && frame.code === 'unsafe_path') {
    return new ThreadlabError('sandbox_file_rejected', `${path}: ${message}`, { isPolicy: true });
  }
  return new ThreadlabError('sandbox_protocol', `File transfer of ${path} failed: ${message}`);
}

/** Thrown when a file turns out larger than the bytes allowed for it (whatever size it claimed). */
export class FileTooLargeError extends ThreadlabError {
  constructor(
    readonly path: string,
    readonly maxBytes: number,
  ) {
    super('sandbox_file_rejected', `${path} is larger than ${maxBytes} bytes.`, { isPolicy: true });
  }
}

/** Writes a file into the container in frames of at most {@link PUT_CHUNK_BYTES} (an empty source makes an empty file). */
export async function putChunks(
  connection: RunnerConnection,
  path: string,
  source: AsyncIterable<Buffer>,
): Promise<SandboxFile> {
  // Every chunk but the last goes unanswered, one after another as the stream takes them; the last is answered,
  // with the first failure of any. One chunk is held back to know which is last.
  let append = false;
  let held: Buffer | undefined;
  for await (const chunk of source) {
    for (let offset = 0; offset < chunk.length; offset += PUT_CHUNK_BYTES) {
      if (held) {
        await connection.post({ op: 'put_file', path, append, more: true }, held);
        append = true;
      }
      held = chunk.subarray(offset, offset + PUT_CHUNK_BYTES);
    }
  }
  const last = await connection.request(
    { op: 'put_file', path, append },
    undefined,
    undefined,
    held ?? Buffer.alloc(0),
  );
  if (last.type !== 'ok' || !last.file) throw rejected(path, last);
  return last.file;
}

export interface StreamFileOptions {
  /** Bytes allowed for this file; more aborts the transfer with {@link FileTooLargeError}. */
  maxBytes: number;
  /** Receives each chunk in order; the next one is requested once it resolves. */
  onChunk: (chunk: Buffer) => Promise<void> | void;
}

/**
 * Streams a file out of the container chunk by chunk, so no more than one chunk is held at a time.
 * The runner shares its process with the user's code: its size claims only stop a transfer early; the
 * bytes actually received are what is counted against `maxBytes`. Returns the bytes received.
 */
export async function streamFile(
  connection: RunnerConnection,
  path: string,
  options: StreamFileOptions,
): Promise<number> {
  let offset = 0;
  const ask = (at: number) =>
    connection.request({ op: 'read_file', path, offset: at, length: Math.min(CHUNK_BYTES, options.maxBytes - at + 1) });
  let next = ask(0);
  for (;;) {
    const frame = await next;
    if (frame.type !== 'file') throw rejected(path, frame);
    if (frame.size > options.maxBytes) throw new FileTooLargeError(path, options.maxBytes);
    const chunk = frame.data;
    offset += chunk.length;
    if (offset > options.maxBytes) throw new FileTooLargeError(path, options.maxBytes);
    const last = frame.eof || chunk.length === 0;
    // The next chunk travels while this one is written: two chunks at most are held.
    if (!last) next = ask(offset);
    try {
      if (chunk.length > 0) await options.onChunk(chunk);
    } catch (err) {
      if (!last) await next.catch(() => undefined);
      throw err;
    }
    if (last) return offset;
  }
}

/** Reads a whole file of the container into memory; refuses files larger than `maxBytes`. */
export async function readFile(connection: RunnerConnection, path: string, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await streamFile(connection, path, { maxBytes, onChunk: (chunk) => void chunks.push(chunk) });
  return Buffer.concat(chunks);
}
