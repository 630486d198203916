import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { safeFileName } from '../../src/domain/file-names.js';
import { readBody } from './http-util.js';
import { parseJsonBody } from './json-body.js';
import { pickMime, WebRequestError } from './map-request.js';
import { discardFiles, multipartBoundary, readMultipart } from './multipart-stream.js';

/** What one message request may carry. */
export interface MessageBodyLimits {
  /** One file, in bytes (multipart). */
  maxFileBytes: number;
  /** All files of one message together, in bytes (multipart). */
  maxFilesTotalBytes: number;
  /** The message text, in UTF-8 bytes. */
  maxTextBytes: number;
  /** Files in one message. @defaultValue 20 */
  maxFiles?: number;
  /** A JSON body, base64 attachments included, in bytes. @defaultValue 1 MiB */
  maxJsonBytes?: number;
  /** Nesting of a JSON body. @defaultValue 32 */
  maxJsonDepth?: number;
}

/** A posted file, already on disk at `path` (the caller moves it into the store or discards it). */
export interface PostedFile {
  name: string;
  mime: string;
  path: string;
  bytes: number;
}

/** What a POST of a message carries. */
export interface PostedMessage {
  text: string;
  files: PostedFile[];
  /** Optional client-chosen id: posting the same id twice stores and runs the message once. */
  clientId?: string;
}

const clientIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'id: 1-64 letters, digits, - or _' });
const jsonBodySchema = z.object({
  text: z.string().default(''),
  id: clientIdSchema.optional(),
  attachments: z
    .array(z.object({ name: z.string().min(1).max(255), mime: z.string().max(255).optional(), dataBase64: z.string() }))
    .default([]),
});

function checkText(text: string, maxTextBytes: number): string {
  const bytes = Buffer.byteLength(text);
  if (bytes > maxTextBytes) {
    throw new WebRequestError(
      413,
      `The message text is ${bytes} bytes; the limit is ${maxTextBytes} bytes. Send long text as a file.`,
      'text_too_large',
    );
  }
  return text;
}

function checkClientId(id: string | undefined): string | undefined {
  if (id === undefined || id === '') return undefined;
  const parsed = clientIdSchema.safeParse(id);
  if (!parsed.success) throw new WebRequestError(400, parsed.error.issues[0]?.message ?? 'bad id');
  return parsed.data;
}

async function fromMultipart(
  body: AsyncIterable<Buffer>,
  boundary: string,
  options: { tmpDir: string; limits: MessageBodyLimits },
): Promise<PostedMessage> {
  const { limits } = options;
  const { fields, files } = await readMultipart(body, {
    boundary,
    tmpDir: options.tmpDir,
    limits: {
      // the files, plus room for the text, the id and part headers
      maxTotalBytes: limits.maxFilesTotalBytes + limits.maxTextBytes + 64 * 1024,
      maxFileBytes: limits.maxFileBytes,
      maxFiles: limits.maxFiles ?? 20,
      maxFieldBytes: limits.maxTextBytes,
    },
  });
  try {
    const total = files.reduce((sum, f) => sum + f.bytes, 0);
    if (total > limits.maxFilesTotalBytes) {
      throw new WebRequestError(
        413,
        `The files of one message may hold ${limits.maxFilesTotalBytes} bytes together.`,
        'too_large',
      );
    }
    const posted: PostedMessage = {
      text: fields.get('text') ?? '',
      files: files.map((f) => {
        const name = safeFileName(f.name, 'upload');
        return { name, mime: pickMime(name, f.declaredMime), path: f.path, bytes: f.bytes };
      }),
    };
    const clientId = checkClientId(fields.get('id'));
    if (clientId) posted.clientId = clientId;
    return posted;
  } catch (err) {
    await discardFiles(files);
    throw err;
  }
}

async function fromJson(
  body: AsyncIterable<Buffer> & { headers?: Record<string, string | string[] | undefined> },
  options: { tmpDir: string; limits: MessageBodyLimits },
): Promise<PostedMessage> {
  const { limits } = options;
  const maxJsonBytes = limits.maxJsonBytes ?? 1024 * 1024;
  const raw = await readBody(body, maxJsonBytes).catch((err: unknown) => {
    if (err instanceof WebRequestError && err.status === 413) {
      throw new WebRequestError(
        413,
        `A JSON body may be at most ${maxJsonBytes} bytes; send larger files as multipart/form-data.`,
        'too_large',
      );
    }
    throw err;
  });
  const parsed = jsonBodySchema.safeParse(parseJsonBody(raw, limits.maxJsonDepth));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new WebRequestError(400, `Invalid message: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim());
  }
  const { attachments } = parsed.data;
  if (attachments.length > (limits.maxFiles ?? 20)) {
    throw new WebRequestError(413, `A message may carry at most ${limits.maxFiles ?? 20} files.`, 'too_many_files');
  }
  const posted: PostedMessage = { text: checkText(parsed.data.text, limits.maxTextBytes), files: [] };
  const clientId = checkClientId(parsed.data.id);
  if (clientId) posted.clientId = clientId;
  let total = 0;
  for (const a of attachments) {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(a.dataBase64.replace(/\s/g, ''))) {
      throw new WebRequestError(400, `attachments: ${a.name} is not valid base64.`);
    }
    const bytes = Buffer.byteLength(a.dataBase64, 'base64');
    total += bytes;
    if (bytes > limits.maxFileBytes) {
      throw new WebRequestError(
        413,
        `${a.name} is ${bytes} bytes; the limit is ${limits.maxFileBytes} bytes.`,
        'file_too_large',
      );
    }
  }
  if (total > limits.maxFilesTotalBytes) {
    throw new WebRequestError(
      413,
      `The files of one message may hold ${limits.maxFilesTotalBytes} bytes together.`,
      'too_large',
    );
  }
  try {
    for (const a of attachments) {
      const name = safeFileName(a.name, 'upload');
      const data = Buffer.from(a.dataBase64, 'base64');
      const path = join(options.tmpDir, `${randomUUID()}.upload`);
      await writeFile(path, data, { mode: 0o600, flag: 'wx' });
      posted.files.push({ name, mime: pickMime(name, a.mime), path, bytes: data.length });
    }
  } catch (err) {
    await discardFiles(posted.files);
    throw err;
  }
  return posted;
}

/**
 * Reads the body of `POST /api/threads/:id/messages`: multipart/form-data (files streamed to
 * `tmpDir`) or JSON with base64 attachments (small: at most `maxJsonBytes`). Each kind has its own
 * limits, so a message without files can never be large. Files land in `tmpDir`; on a refusal none remain.
 */
export async function readMessageBody(
  req: AsyncIterable<Buffer> & { headers: Record<string, string | string[] | undefined> },
  options: { tmpDir: string; limits: MessageBodyLimits },
): Promise<PostedMessage> {
  const contentType = String(req.headers['content-type'] ?? '');
  const type = contentType.toLowerCase();
  let posted: PostedMessage;
  if (type.startsWith('multipart/form-data')) {
    const boundary = multipartBoundary(contentType);
    if (!boundary) throw new WebRequestError(400, 'The multipart content type has no boundary.', 'bad_multipart');
    const declared = Number(req.headers['content-length'] ?? '0');
    const max = options.limits.maxFilesTotalBytes + options.limits.maxTextBytes + 64 * 1024;
    if (declared > max) throw new WebRequestError(413, `The request is larger than ${max} bytes.`, 'too_large');
    posted = await fromMultipart(req, boundary, options);
    try {
      checkText(posted.text, options.limits.maxTextBytes);
    } catch (err) {
      await discardFiles(posted.files);
      throw err;
    }
  } else if (type.startsWith('application/json')) {
    posted = await fromJson(req, options);
  } else {
    throw new WebRequestError(415, 'Send multipart/form-data or application/json.', 'unsupported_media_type');
  }
  if (posted.text.trim() === '' && posted.files.length === 0) throw new WebRequestError(400, 'The message is empty.');
  return posted;
}
