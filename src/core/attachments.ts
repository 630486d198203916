import type { SandboxFile } from '../domain/execution.js';
import { limitBytes } from '../domain/byte-limit.js';
import { ThreadlabError, toThreadlabError } from '../domain/errors.js';
import type { InboundAttachment, InboundMessage } from '../domain/messages.js';
import type { PlatformAdapter } from '../ports/platform-adapter.js';
import type { Sandbox } from '../ports/sandbox.js';
import { formatBytes } from '../domain/text/format.js';

export interface AttachmentOutcome {
  stored: { attachment: InboundAttachment; file: SandboxFile }[];
  /** One line per attachment that could not be stored, saying why and what to do. */
  problems: string[];
}

/**
 * Fetches a message's attachments through its adapter and puts them into the thread's sandbox.
 * A rejected attachment is reported, never silently skipped; the others still arrive.
 */
export async function storeAttachments(options: {
  message: InboundMessage;
  threadKey: string;
  adapter: PlatformAdapter;
  sandbox: Sandbox;
  maxBytes: number;
  signal?: AbortSignal;
}): Promise<AttachmentOutcome> {
  const { message, threadKey, sandbox, maxBytes } = options;
  const stored: AttachmentOutcome['stored'] = [];
  const problems: string[] = [];
  for (const attachment of message.attachments) {
    try {
      if (attachment.bytes !== undefined && attachment.bytes > maxBytes) {
        problems.push(overLimit(attachment.name, maxBytes, attachment.bytes));
        continue;
      }
      if (attachment.inlineBase64 !== undefined) {
        const data = Buffer.from(attachment.inlineBase64, 'base64');
        if (data.length > maxBytes) {
          problems.push(overLimit(attachment.name, maxBytes));
          continue;
        }
        stored.push({ attachment, file: await sandbox.putFile(threadKey, attachment.name, data) });
        continue;
      }
      const file = await fetchIntoSandbox({ ...options, attachment, path: attachment.name });
      stored.push({ attachment, file });
    } catch (err) {
      const e = toThreadlabError(err);
      if (e.code === 'cancelled') throw e;
      if (!e.isPolicy && !['attachment_rejected', 'sandbox_file_rejected', 'platform_api'].includes(e.code)) throw e;
      problems.push(`\`${attachment.name}\` could not be added: ${e.message}`);
    }
  }
  return { stored, problems };
}

/**
 * Streams an attachment from its platform into the thread's sandbox, a chunk at a time. The bytes are
 * counted here too (the adapter's own count and the platform's declared size are not trusted), so a
 * file over `maxBytes` fails part-way and leaves nothing behind.
 */
export async function fetchIntoSandbox(options: {
  attachment: InboundAttachment;
  /** Name of the file in the sandbox. */
  path: string;
  threadKey: string;
  adapter: PlatformAdapter;
  sandbox: Sandbox;
  maxBytes: number;
  signal?: AbortSignal;
}): Promise<SandboxFile> {
  const { attachment, maxBytes, signal } = options;
  const download = await options.adapter.download(attachment, signal ? { maxBytes, signal } : { maxBytes });
  const stream = limitBytes(download.stream, {
    maxBytes,
    tooLarge: () => new ThreadlabError('attachment_rejected', overLimit(attachment.name, maxBytes), { isPolicy: true }),
  });
  try {
    return await options.sandbox.putFile(options.threadKey, options.path, stream);
  } finally {
    // A sandbox that gave up early must not leave the platform's connection (or a file) open.
    stream.destroy();
  }
}

/** The one sentence for a file over THREADLAB_MAX_FILE_MB, with its size when it is known. */
function overLimit(name: string, maxBytes: number, bytes?: number): string {
  const size = bytes === undefined ? 'over' : `${formatBytes(bytes)}, over`;
  return `\`${name}\` is ${size} the ${formatBytes(maxBytes)} limit (THREADLAB_MAX_FILE_MB); it was not added.`;
}
