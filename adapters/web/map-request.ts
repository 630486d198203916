import { safeFileName } from '../../src/domain/file-names.js';
import { z } from 'zod';
import type { InboundCommand, InboundMessage } from '../../src/domain/messages.js';
import type { ThreadRef } from '../../src/domain/thread-key.js';
import type { WebAttachment } from './types.js';

/** A request the API refuses, with the HTTP status to answer. */
export class WebRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code = 'bad_request',
  ) {
    super(message);
    this.name = 'WebRequestError';
  }
}

/** A file as posted, before it is stored. */
export interface PostedFile {
  name: string;
  mime: string;
  data: Buffer;
}

/** What a POST of a message carries. */
export interface PostedMessage {
  text: string;
  files: PostedFile[];
  /** Optional client-chosen id: posting the same id twice stores and runs the message once. */
  clientId?: string;
}

const MIME_BY_EXT: Record<string, string> = {
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  txt: 'text/plain',
  md: 'text/markdown',
  json: 'application/json',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xls: 'application/vnd.ms-excel',
  parquet: 'application/vnd.apache.parquet',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  zip: 'application/zip',
  py: 'text/x-python',
  html: 'text/html',
  xml: 'application/xml',
};

/** Guesses a MIME type from a file name; `application/octet-stream` when unknown. */
export function mimeFromName(name: string): string {
  const ext = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase() ?? '';
  return MIME_BY_EXT[ext] ?? 'application/octet-stream';
}

/**
 * The MIME type to record: the extension's when it is known (browsers report CSV as Excel on some
 * systems, and multipart parts without a type default to text/plain), else what the client declared.
 */
export function pickMime(name: string, declared: string | undefined): string {
  const guessed = mimeFromName(name);
  return guessed !== 'application/octet-stream' ? guessed : declared || guessed;
}

const clientIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'id: 1-64 letters, digits, - or _' });
const jsonBodySchema = z.object({
  text: z.string().max(100_000).default(''),
  id: clientIdSchema.optional(),
  attachments: z
    .array(z.object({ name: z.string().min(1).max(255), mime: z.string().max(255).optional(), dataBase64: z.string() }))
    .max(20)
    .default([]),
});

function checkSize(file: PostedFile, maxFileBytes: number): PostedFile {
  if (file.data.length > maxFileBytes) {
    throw new WebRequestError(
      413,
      `${file.name} is ${file.data.length} bytes; the limit is ${maxFileBytes} bytes.`,
      'file_too_large',
    );
  }
  return file;
}

async function parseMultipart(contentType: string, body: Buffer, maxFileBytes: number): Promise<PostedMessage> {
  let form: FormData;
  try {
    form = await new Request('http://local/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: new Uint8Array(body),
    }).formData();
  } catch {
    throw new WebRequestError(400, 'The multipart body could not be parsed.');
  }
  const files: PostedFile[] = [];
  for (const entry of form.getAll('file')) {
    if (typeof entry === 'string') continue;
    const name = safeFileName(entry.name, 'upload');
    const data = Buffer.from(await entry.arrayBuffer());
    files.push(checkSize({ name, mime: pickMime(name, entry.type), data }, maxFileBytes));
  }
  const text = form.get('text');
  const id = form.get('id');
  const clientId = typeof id === 'string' && id !== '' ? clientIdSchema.safeParse(id) : undefined;
  if (clientId && !clientId.success) throw new WebRequestError(400, clientId.error.issues[0]?.message ?? 'bad id');
  return { text: typeof text === 'string' ? text : '', files, clientId: clientId?.data };
}

function parseJson(body: Buffer, maxFileBytes: number): PostedMessage {
  let raw: unknown;
  try {
    raw = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebRequestError(400, 'The body is not valid JSON.');
  }
  const parsed = jsonBodySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new WebRequestError(400, `Invalid message: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim());
  }
  const files = parsed.data.attachments.map((a) => {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(a.dataBase64.replace(/\s/g, ''))) {
      throw new WebRequestError(400, `attachments: ${a.name} is not valid base64.`);
    }
    const name = safeFileName(a.name, 'upload');
    return checkSize({ name, mime: pickMime(name, a.mime), data: Buffer.from(a.dataBase64, 'base64') }, maxFileBytes);
  });
  return { text: parsed.data.text, files, clientId: parsed.data.id };
}

/** Parses the body of `POST /api/threads/:id/messages` (multipart/form-data or JSON with base64). */
export async function parseMessageBody(
  contentType: string | undefined,
  body: Buffer,
  options: { maxFileBytes: number },
): Promise<PostedMessage> {
  const type = (contentType ?? '').toLowerCase();
  const posted = type.startsWith('multipart/form-data')
    ? await parseMultipart(contentType ?? '', body, options.maxFileBytes)
    : type.startsWith('application/json')
      ? parseJson(body, options.maxFileBytes)
      : undefined;
  if (!posted)
    throw new WebRequestError(415, 'Send multipart/form-data or application/json.', 'unsupported_media_type');
  if (posted.text.trim() === '' && posted.files.length === 0) throw new WebRequestError(400, 'The message is empty.');
  return posted;
}

/** `/reset`, `/files`, `/help`, `/stop` typed as a whole message are commands. */
export function parseTextCommand(text: string): InboundCommand | undefined {
  const match = /^\/(reset|files|help|stop)\s*$/i.exec(text.trim());
  if (!match) return undefined;
  return { name: match[1]!.toLowerCase() as 'reset' | 'files' | 'help' | 'stop' };
}

/** The ThreadRef of a web chat thread. */
export function webThreadRef(threadId: string): ThreadRef {
  return { platform: 'web', workspace: 'local', channel: 'web', thread: threadId };
}

/** The InboundMessage the core receives for a stored user message. */
export function toInboundMessage(input: {
  messageId: string;
  threadId: string;
  text: string;
  attachments: WebAttachment[];
  command?: InboundCommand;
  receivedAtMs: number;
  user?: { id: string; name?: string };
}): InboundMessage {
  const message: InboundMessage = {
    id: `web-${input.messageId}`,
    thread: webThreadRef(input.threadId),
    user: input.user ?? { id: 'web-user', name: 'you' },
    text: input.text,
    attachments: input.attachments.map((a) => ({
      id: a.id,
      name: a.name,
      mime: a.mime,
      bytes: a.bytes,
      url: `web-upload:${a.id}`,
    })),
    receivedAtMs: input.receivedAtMs,
    replyContext: { threadId: input.threadId, messageId: input.messageId },
  };
  const command = input.command ?? parseTextCommand(input.text);
  if (command) message.command = command;
  return message;
}
