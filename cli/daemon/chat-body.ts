import { constants, createReadStream, type ReadStream } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Readable } from 'node:stream';
import { ThreadlabError } from '../../src/domain/errors.js';
import { chatHeaderSchema, DAEMON_LIMITS, type ChatHeader } from './protocol.js';

/** A file the caller attaches, opened with the caller's own rights. */
export interface OpenedAttachment {
  name: string;
  bytes: number;
  handle: FileHandle;
}

/**
 * Opens the files named with `--attach` as the calling user: a file they cannot read is refused
 * here, before anything reaches the daemon. Close the handles with {@link closeAttachments}.
 */
export async function openAttachments(paths: string[], options: { maxBytes: number }): Promise<OpenedAttachment[]> {
  if (paths.length > DAEMON_LIMITS.maxAttachments)
    throw refused(`${paths.length} files attached; at most ${DAEMON_LIMITS.maxAttachments} per message.`);
  const opened: OpenedAttachment[] = [];
  try {
    for (const path of paths) {
      const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch((err: NodeJS.ErrnoException) => {
        throw refused(`--attach: cannot read ${path} (${err.code ?? err.message}).`);
      });
      opened.push({ name: basename(path), bytes: 0, handle });
      const info = await handle.stat();
      if (!info.isFile()) throw refused(`--attach: ${path} is not a regular file.`);
      if (info.size > options.maxBytes)
        throw refused(
          `--attach: ${path} is ${info.size} bytes, over the limit of ${options.maxBytes} (THREADLAB_MAX_FILE_MB).`,
        );
      opened[opened.length - 1]!.bytes = info.size;
    }
    return opened;
  } catch (err) {
    await closeAttachments(opened);
    throw err;
  }
}

export async function closeAttachments(opened: OpenedAttachment[]): Promise<void> {
  await Promise.all(opened.map((a) => a.handle.close().catch(() => {})));
}

/** The request body: the header line, then exactly the stated bytes of each file. */
export function chatBody(header: Omit<ChatHeader, 'attachments'>, files: OpenedAttachment[]): Readable {
  const full: ChatHeader = { ...header, attachments: files.map(({ name, bytes }) => ({ name, bytes })) };
  async function* parts(): AsyncGenerator<Buffer> {
    yield Buffer.from(`${JSON.stringify(full)}\n`);
    for (const file of files) {
      if (file.bytes === 0) continue;
      // A file that grows meanwhile is cut at the size announced; one that shrinks fails on the daemon side.
      const stream: ReadStream = createReadStream('', {
        fd: file.handle,
        start: 0,
        end: file.bytes - 1,
        autoClose: false,
      });
      for await (const chunk of stream) yield chunk as Buffer;
    }
  }
  return Readable.from(parts());
}

/** A chat request as the daemon received it: attachments staged in its private directory. */
export interface ReceivedChat {
  header: ChatHeader;
  /** Staged copies, in the order of `header.attachments`. */
  files: string[];
}

/**
 * Reads a chat request body into `stagingDir`. Every size is a claim: the header line is bounded,
 * each file must not exceed `maxFileBytes` and must carry exactly the bytes it announced.
 */
export async function readChatBody(
  body: AsyncIterable<Buffer>,
  options: { stagingDir: string; maxFileBytes: number },
): Promise<ReceivedChat> {
  const iterator = body[Symbol.asyncIterator]();
  let pending: Buffer = Buffer.alloc(0);
  let ended = false;
  const more = async (): Promise<boolean> => {
    const next = await iterator.next();
    if (next.done) return !(ended = true);
    pending = pending.length ? Buffer.concat([pending, next.value]) : next.value;
    return true;
  };
  let newline: number;
  while ((newline = pending.indexOf(0x0a)) < 0) {
    if (pending.length > DAEMON_LIMITS.maxJsonBytes)
      throw refused(`The message is over the limit of ${DAEMON_LIMITS.maxJsonBytes} bytes.`);
    if (!(await more())) throw refused('The request ended before its header.');
  }
  const header = parseHeader(pending.subarray(0, newline));
  pending = pending.subarray(newline + 1);
  for (const a of header.attachments) {
    if (a.bytes > options.maxFileBytes)
      throw refused(
        `${a.name} is ${a.bytes} bytes, over the limit of ${options.maxFileBytes} (THREADLAB_MAX_FILE_MB).`,
      );
  }
  await mkdir(options.stagingDir, { recursive: true, mode: 0o700 });
  const files: string[] = [];
  for (const [i, attachment] of header.attachments.entries()) {
    const path = join(options.stagingDir, String(i));
    const out = await open(
      path,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      let left = attachment.bytes;
      while (left > 0) {
        if (pending.length === 0 && !(await more()))
          throw refused(
            `${attachment.name} ended after ${attachment.bytes - left} of the ${attachment.bytes} bytes announced.`,
          );
        const take = pending.subarray(0, left);
        await out.write(take);
        left -= take.length;
        pending = pending.subarray(take.length);
      }
    } finally {
      await out.close();
    }
    files.push(path);
  }
  while (!ended && pending.length === 0) await more();
  if (pending.length > 0) throw refused('The request carries more bytes than its attachments announced.');
  return { header, files };
}

function parseHeader(line: Buffer): ChatHeader {
  let json: unknown;
  try {
    json = JSON.parse(line.toString('utf8'));
  } catch {
    throw refused('The chat request header is not JSON.');
  }
  const parsed = chatHeaderSchema.safeParse(json);
  if (!parsed.success) throw refused(`Malformed chat request: ${parsed.error.issues[0]?.message ?? 'invalid'}.`);
  return parsed.data;
}

function refused(message: string): ThreadlabError {
  return new ThreadlabError('attachment_rejected', message, { isPolicy: true });
}
