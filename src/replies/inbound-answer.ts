import { toThreadlabError } from '../domain/errors.js';
import type { InboundMessage } from '../domain/messages.js';
import { textReply } from '../domain/reply.js';
import type { Logger } from '../logger.js';
import type { InboundOutcome, PlatformAdapter } from '../ports/platform-adapter.js';

/** What an answer is given through: the adapter's own reply and, where its platform has one, its private notice. */
export interface AnswerTarget extends Pick<PlatformAdapter, 'reply'> {
  /**
   * Tells the message's user something only they see (an ephemeral message, an ephemeral
   * interaction reply or a DM). Resolves false when the platform could not deliver it privately; the
   * answer then goes to the thread. Absent: the notice goes to the thread.
   */
  notifyPrivately?(message: InboundMessage, text: string): Promise<boolean>;
}

/**
 * The one answer to the core's verdict on an inbound message, given by the adapter that received it: a
 * refusal by the allowlists (or a Stop someone may not press) privately, in the thread only where the platform
 * cannot say it privately, and only when `tell`; a limit's refusal and a command's immediate answer (a stop's)
 * in the thread; nothing for an accepted message, whose answer comes from its job. Never throws: a failed
 * answer is logged.
 */
export async function answerInbound(
  target: AnswerTarget,
  message: InboundMessage,
  outcome: InboundOutcome | void,
  logger: Logger,
): Promise<void> {
  if (!outcome) return;
  if (outcome.accepted) {
    if (outcome.answer !== undefined) await say(target, message, outcome.answer, logger);
    return;
  }
  if (outcome.reason === 'not_allowed') {
    if (outcome.tell) await tellPrivately(target, message, outcome.message, logger);
    return;
  }
  await say(target, message, outcome.message, logger);
}

/** Says `text` to the message's user only (in the thread where the platform cannot); false when it failed. */
export async function tellPrivately(
  target: AnswerTarget,
  message: InboundMessage,
  text: string,
  logger: Logger,
): Promise<boolean> {
  try {
    if (await target.notifyPrivately?.(message, text)) return true;
    await target.reply(message, textReply(text));
    return true;
  } catch (err) {
    logger.warn({ err: toThreadlabError(err), user: message.user.id }, 'could not tell the user privately');
    return false;
  }
}

async function say(target: AnswerTarget, message: InboundMessage, text: string, logger: Logger): Promise<void> {
  try {
    await target.reply(message, textReply(text));
  } catch (err) {
    logger.error({ err: toThreadlabError(err) }, 'could not post a reply');
  }
}
