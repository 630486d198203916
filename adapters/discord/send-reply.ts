import type { Logger } from '../../src/logger.js';
import { formatBytes } from '../../src/domain/text/format.js';
import { isTooLarge, platformError, type OutgoingFile, type OutgoingMessage, type ReplyTarget } from './target.js';

/** The message said in the thread when Discord refuses a file as too large. */
export function tooLargeNotice(file: OutgoingFile, limitBytes: number): string {
  return (
    `⚠️ Discord refused \`${file.name}\` (${formatBytes(file.data.length)}) as too large for this channel; ` +
    `the limit I was given is ${formatBytes(limitBytes)} (THREADLAB_DISCORD_MAX_UPLOAD_MB). ` +
    'Ask me for a smaller or compressed version.'
  );
}

/**
 * Sends planned messages in order. Rate limits are waited out by discord.js's REST client. A message
 * refused as too large (413, code 40005) is sent again without its files, each file is retried alone, and
 * every file that is still refused is named in the thread with its size and the limit: never a silent drop.
 * Returns the ids of the messages posted, in order.
 */
export async function sendMessages(
  target: ReplyTarget,
  messages: OutgoingMessage[],
  options: { limitBytes: number; logger: Logger },
): Promise<string[]> {
  const ids: string[] = [];
  for (const message of messages) await sendOne(target, message, { ...options, ids });
  return ids;
}

async function sendOne(
  target: ReplyTarget,
  message: OutgoingMessage,
  options: { limitBytes: number; logger: Logger; ids: string[] },
): Promise<void> {
  try {
    options.ids.push(await target.post(message));
    return;
  } catch (err) {
    if (!isTooLarge(err) || message.files.length === 0) throw platformError(err, 'post a message');
    options.logger.warn(
      { files: message.files.map((f) => ({ name: f.name, bytes: f.data.length })) },
      'Discord refused an upload as too large',
    );
  }
  if (message.content) await sendOne(target, { content: message.content, files: [] }, options);
  if (message.files.length > 1) {
    for (const file of message.files) await sendOne(target, { content: '', files: [file] }, options);
    return;
  }
  const [file] = message.files;
  if (file) await sendOne(target, { content: tooLargeNotice(file, options.limitBytes), files: [] }, options);
}
