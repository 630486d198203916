import type { Logger } from '../../src/logger.js';
import { sendMessages } from './send-reply.js';
import { isTooLarge, platformError, type OutgoingMessage, type ReplyTarget } from './target.js';

/**
 * Replaces an earlier answer (`previous`, its message ids in order) with planned messages, in place:
 * each earlier message is edited to the new content and its attachments replaced by the new files (an
 * empty list removes the old ones), extra messages are posted after them, surplus ones deleted. Files
 * Discord refuses as too large on an edit go as messages of their own, named when still refused.
 * Returns the answer's message ids.
 */
export async function updateMessages(
  target: ReplyTarget,
  messages: OutgoingMessage[],
  previous: string[],
  options: { limitBytes: number; logger: Logger },
): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, message] of messages.entries()) {
    const id = previous[i];
    if (!id) {
      ids.push(...(await sendMessages(target, [message], options)));
      continue;
    }
    try {
      await target.edit(id, { content: message.content, files: message.files });
      ids.push(id);
      continue;
    } catch (err) {
      if (!isTooLarge(err) || message.files.length === 0) throw platformError(err, 'edit a message');
    }
    await target.edit(id, { content: message.content, files: [] }).catch((err: unknown) => {
      throw platformError(err, 'edit a message');
    });
    ids.push(id, ...(await sendMessages(target, [{ content: '', files: message.files }], options)));
  }
  for (const id of previous.slice(messages.length)) {
    await target.remove(id).catch((err: unknown) => {
      throw platformError(err, 'delete a message');
    });
  }
  return ids;
}
