import type { SandboxFile } from '../domain/execution.js';
import { toThreadlabError } from '../domain/errors.js';
import type { InboundAttachment, InboundMessage } from '../domain/messages.js';
import type { PlatformAdapter } from '../ports/platform-adapter.js';
import type { Sandbox } from '../ports/sandbox.js';

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
  const { message, threadKey, adapter, sandbox, maxBytes, signal } = options;
  const stored: AttachmentOutcome['stored'] = [];
  const problems: string[] = [];
  for (const attachment of message.attachments) {
    try {
      if (attachment.bytes !== undefined && attachment.bytes > maxBytes) {
        problems.push(
          `\`${attachment.name}\` is ${formatBytes(attachment.bytes)}, over the ${formatBytes(maxBytes)} limit (THREADLAB_MAX_FILE_MB); it was not added.`,
        );
        continue;
      }
      const data =
        attachment.inlineBase64 !== undefined
          ? Buffer.from(attachment.inlineBase64, 'base64')
          : await adapter.download(attachment, signal ? { maxBytes, signal } : { maxBytes });
      if (data.length > maxBytes) {
        problems.push(
          `\`${attachment.name}\` is over the ${formatBytes(maxBytes)} limit (THREADLAB_MAX_FILE_MB); it was not added.`,
        );
        continue;
      }
      stored.push({ attachment, file: await sandbox.putFile(threadKey, attachment.name, data) });
    } catch (err) {
      const e = toThreadlabError(err);
      if (e.code === 'cancelled') throw e;
      if (!e.isPolicy && !['attachment_rejected', 'sandbox_file_rejected', 'platform_api'].includes(e.code)) throw e;
      problems.push(`\`${attachment.name}\` could not be added: ${e.message}`);
    }
  }
  return { stored, problems };
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
