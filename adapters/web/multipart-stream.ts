import { randomUUID } from 'node:crypto';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { bodyChunks } from './http-util.js';
import { WebRequestError } from './map-request.js';

/** Limits of one multipart/form-data body. */
export interface MultipartLimits {
  /** The whole body, in bytes. */
  maxTotalBytes: number;
  /** One file, in bytes. */
  maxFileBytes: number;
  /** Files in one body. */
  maxFiles: number;
  /** One text field, in bytes. */
  maxFieldBytes: number;
  /** Text fields in one body. @defaultValue 16 */
  maxFields?: number;
}

/** A file part, already on disk at `path` (the caller moves or removes it). */
export interface StreamedFile {
  field: string;
  name: string;
  declaredMime: string | undefined;
  path: string;
  bytes: number;
}

/** The parts of a multipart body: text fields by name (the last wins) and files on disk. */
export interface MultipartResult {
  fields: Map<string, string>;
  files: StreamedFile[];
}

const MAX_HEADER_BYTES = 8 * 1024;
const CRLF2 = Buffer.from('\r\n\r\n');

/** The boundary of a multipart/form-data content type, or undefined. */
export function multipartBoundary(contentType: string): string | undefined {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

function headerParam(value: string, name: string): string | undefined {
  const quoted = new RegExp(`(?:^|;)\\s*${name}="((?:[^"\\\\]|\\\\.)*)"`, 'i').exec(value)?.[1];
  if (quoted !== undefined) return quoted.replace(/\\(.)/g, '$1');
  return new RegExp(`(?:^|;)\\s*${name}=([^;\\s]+)`, 'i').exec(value)?.[1];
}

function parsePartHeaders(text: string): { name: string; filename?: string; type?: string } {
  const headers = new Map<string, string>();
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const disposition = headers.get('content-disposition') ?? '';
  const name = headerParam(disposition, 'name');
  if (!/^form-data\b/i.test(disposition) || name === undefined) {
    throw new WebRequestError(400, 'A multipart part has no form-data name.', 'bad_multipart');
  }
  let filename = headerParam(disposition, 'filename');
  const extended = /filename\*=UTF-8''([^;\s]+)/i.exec(disposition)?.[1];
  if (extended !== undefined) {
    try {
      filename = decodeURIComponent(extended);
    } catch {
      // a malformed extended name falls back to the plain one
    }
  }
  return {
    name,
    ...(filename !== undefined ? { filename } : {}),
    ...(headers.has('content-type') ? { type: headers.get('content-type') } : {}),
  };
}

/** Where the bytes of the current part go. */
interface PartSink {
  write(data: Buffer): Promise<void>;
  finish(): Promise<void>;
}

/**
 * Streams a multipart/form-data body: text fields are kept in memory within `maxFieldBytes`, files
 * are written to `tmpDir` as they arrive, so memory stays at about one chunk whatever the upload's
 * size. Any limit passed or malformed input rejects (413/400) and removes the files written so far.
 */
export async function readMultipart(
  body: AsyncIterable<Buffer>,
  options: { boundary: string; tmpDir: string; limits: MultipartLimits },
): Promise<MultipartResult> {
  const { limits } = options;
  const delimiter = Buffer.from(`\r\n--${options.boundary}`);
  const fields = new Map<string, string>();
  const files: StreamedFile[] = [];
  let fieldCount = 0;
  let handle: FileHandle | undefined;
  // Changed inside drain(): the cast keeps TypeScript from narrowing it to its first value.
  let state = 'preamble' as 'preamble' | 'boundary' | 'headers' | 'body' | 'done';
  let sink: PartSink | undefined;
  // The body may open with the boundary itself: a leading CRLF lets one delimiter match every boundary.
  let buf: Buffer = Buffer.from('\r\n');

  const openPart = async (headers: { name: string; filename?: string; type?: string }): Promise<PartSink> => {
    if (headers.filename === undefined) {
      if (++fieldCount > (limits.maxFields ?? 16))
        throw new WebRequestError(400, 'Too many form fields.', 'bad_multipart');
      const chunks: Buffer[] = [];
      let bytes = 0;
      return {
        write: async (data) => {
          bytes += data.length;
          if (bytes > limits.maxFieldBytes) {
            const what = headers.name === 'text' ? 'The message text' : `The field ${headers.name.slice(0, 40)}`;
            throw new WebRequestError(
              413,
              `${what} is larger than ${limits.maxFieldBytes} bytes; send long text as a file.`,
              'text_too_large',
            );
          }
          chunks.push(data);
        },
        finish: async () => void fields.set(headers.name, Buffer.concat(chunks).toString('utf8')),
      };
    }
    if (headers.name !== 'file') {
      throw new WebRequestError(
        400,
        `Send files in the "file" field (got "${headers.name.slice(0, 40)}").`,
        'bad_multipart',
      );
    }
    if (files.length >= limits.maxFiles) {
      throw new WebRequestError(413, `A message may carry at most ${limits.maxFiles} files.`, 'too_many_files');
    }
    const file: StreamedFile = {
      field: headers.name,
      name: headers.filename,
      declaredMime: headers.type,
      path: join(options.tmpDir, `${randomUUID()}.upload`),
      bytes: 0,
    };
    files.push(file);
    const fh = await open(file.path, 'wx', 0o600);
    handle = fh;
    return {
      write: async (data) => {
        file.bytes += data.length;
        if (file.bytes > limits.maxFileBytes) {
          throw new WebRequestError(
            413,
            `${file.name.slice(0, 100)} is larger than ${limits.maxFileBytes} bytes, the largest file accepted.`,
            'file_too_large',
          );
        }
        await fh.write(data);
      },
      finish: async () => {
        handle = undefined;
        await fh.close();
      },
    };
  };

  const drain = async (): Promise<void> => {
    for (;;) {
      if (state === 'preamble' || state === 'body') {
        const at = buf.indexOf(delimiter);
        if (at < 0) {
          // Keep what could be the start of a delimiter split across chunks; the rest is part data.
          const keep = Math.min(buf.length, delimiter.length - 1);
          if (state === 'body') await sink!.write(buf.subarray(0, buf.length - keep));
          buf = Buffer.from(buf.subarray(buf.length - keep));
          return;
        }
        if (state === 'body') {
          await sink!.write(buf.subarray(0, at));
          await sink!.finish();
          sink = undefined;
        }
        buf = buf.subarray(at + delimiter.length);
        state = 'boundary';
      } else if (state === 'boundary') {
        if (buf.length < 2) return;
        if (buf[0] === 0x2d && buf[1] === 0x2d) {
          state = 'done';
          return;
        }
        if (buf[0] !== 0x0d || buf[1] !== 0x0a)
          throw new WebRequestError(400, 'A multipart boundary is malformed.', 'bad_multipart');
        buf = buf.subarray(2);
        state = 'headers';
      } else if (state === 'headers') {
        const end = buf.indexOf(CRLF2);
        if (end < 0 ? buf.length > MAX_HEADER_BYTES : end > MAX_HEADER_BYTES) {
          throw new WebRequestError(400, 'A multipart part has oversized headers.', 'bad_multipart');
        }
        if (end < 0) return;
        const headers = parsePartHeaders(buf.subarray(0, end).toString('utf8'));
        buf = buf.subarray(end + CRLF2.length);
        sink = await openPart(headers);
        state = 'body';
      } else return; // done: an epilogue is ignored
    }
  };

  try {
    let total = 0;
    for await (const chunk of bodyChunks(body)) {
      total += chunk.length;
      if (total > limits.maxTotalBytes) {
        throw new WebRequestError(413, `The request is larger than ${limits.maxTotalBytes} bytes.`, 'too_large');
      }
      if (state === 'done') continue;
      buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
      await drain();
    }
    if (state !== 'done') throw new WebRequestError(400, 'The multipart body ended early.', 'bad_multipart');
  } catch (err) {
    await handle?.close().catch(() => undefined);
    await discardFiles(files);
    throw err;
  }
  // A file input left empty arrives as a part with an empty name and no bytes: it is no file.
  const kept = files.filter((f) => f.name !== '' || f.bytes > 0);
  await discardFiles(files.filter((f) => !kept.includes(f)));
  return { fields, files: kept };
}

/** Removes streamed files that will not be kept. */
export async function discardFiles(files: { path: string }[]): Promise<void> {
  await Promise.all(files.map((f) => rm(f.path, { force: true })));
}
