import type { InboundMessage } from '../../src/domain/messages.js';
import type { ThreadRef } from '../../src/domain/thread-key.js';
import { interactionReplyContext, type CommandView } from './map-interaction.js';
import { threadName, toInboundAttachments, type MessageView } from './map-message.js';

/** The name of the message command (Apps → Run code) as registered and as interactions carry it. */
export const RUN_CODE_COMMAND = 'Run code';

/** The facts of a "Run code" use: who used it where (as for a slash command), and the message it targets. */
export interface MessageCommandView extends Omit<CommandView, 'options'> {
  target: Pick<MessageView, 'id' | 'content' | 'attachments'> & { author: { id: string; bot: boolean } };
}

/** The name of the thread a message's run gets: what it runs, at most Discord's 100 characters. */
export function runThreadName(view: MessageCommandView): string {
  const first = view.target.content.split('\n').find((l) => l.trim() !== '' && !l.trim().startsWith('```'));
  return threadName(`Run: ${first?.trim() ?? view.target.attachments[0]?.filename ?? 'code'}`);
}

/**
 * The InboundMessage of a "Run code" use: the invoker is its user (their access, rights and budget apply), the
 * target's text and attachments are what runs, and `source` names the target and its author. `ref` is where it
 * runs: the thread started on the target, or the thread or DM it is in; the answer goes to `ref.thread`, as a
 * channel message (never the interaction's webhook, which answers in the channel the command was used in).
 */
export function toRunMessage(
  view: MessageCommandView,
  ref: ThreadRef,
  via: 'interaction' | 'channel' = 'channel',
): InboundMessage {
  const replyContext: InboundMessage['replyContext'] =
    via === 'interaction'
      ? interactionReplyContext(view)
      : { kind: 'channel', channelId: ref.thread, messageId: view.target.id };
  return {
    id: `discord:interaction:${view.id}`,
    thread: ref,
    user: {
      id: view.user.id,
      name: view.user.name,
      isBot: view.user.bot,
      ...(view.roles ? { roles: view.roles } : {}),
    },
    text: view.target.content,
    attachments: toInboundAttachments(view.target),
    command: { name: 'runMessage', text: view.target.content },
    receivedAtMs: view.createdAtMs,
    replyContext,
    source: { messageId: view.target.id, authorId: view.target.author.bot ? null : view.target.author.id },
  };
}

/**
 * `message` (a typed `run` sent as a reply) turned into a run of the message it replies to: its text and
 * attachments are the referenced message's, its user stays the one who replied.
 */
export function withRunReference(
  message: InboundMessage,
  referenced: Pick<MessageView, 'id' | 'content' | 'attachments' | 'author'>,
): InboundMessage {
  return {
    ...message,
    text: referenced.content,
    attachments: toInboundAttachments(referenced),
    command: { name: 'runMessage', text: referenced.content },
    source: { messageId: referenced.id, authorId: referenced.author.bot ? null : referenced.author.id },
  };
}
