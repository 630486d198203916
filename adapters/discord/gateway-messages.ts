import type { Message, OmitPartialGroupDMChannel, PartialMessage } from 'discord.js';
import { toThreadlabError } from '../../src/domain/errors.js';
import type { InboundMessage } from '../../src/domain/messages.js';
import type { Logger } from '../../src/logger.js';
import type { InboundHandler } from '../../src/ports/platform-adapter.js';
import { answerInbound, tellPrivately, type AnswerTarget } from '../../src/replies/inbound-answer.js';
import { editOf } from './map-edit.js';
import { runReference } from './run-message.js';
import type { ThreadFollower } from './thread-follower.js';

/** What the gateway's message events are handed on with. */
export interface GatewayMessageContext {
  follower: ThreadFollower;
  handler: InboundHandler;
  /** The adapter, which gives the core's verdict on a message its one answer. */
  answers: AnswerTarget;
  logger: Logger;
}

/** MESSAGE_CREATE: a message for the bot (a mention, or in a thread it follows) → the core. */
export async function handleGatewayMessage(ctx: GatewayMessageContext, message: Message): Promise<void> {
  try {
    const routed = await ctx.follower.route(message, admitWith(ctx));
    const inbound = routed && (await runReference(message, routed));
    if (inbound) await answerInbound(ctx.answers, inbound, await ctx.handler.onMessage(inbound), ctx.logger);
  } catch (err) {
    ctx.logger.error(
      { err: toThreadlabError(err), message: message.id },
      'could not hand a Discord message to the core',
    );
  }
}

/**
 * MESSAGE_UPDATE: a person's edit of a message's text re-runs it. A partial update (a message sent
 * before this connection) is fetched first; a bot's edit, an embed-only update (a link preview) and
 * the same text are ignored.
 */
export async function handleGatewayEdit(
  ctx: GatewayMessageContext,
  old: OmitPartialGroupDMChannel<Message | PartialMessage>,
  updated: OmitPartialGroupDMChannel<Message | PartialMessage>,
): Promise<void> {
  try {
    if (updated.author?.bot || updated.webhookId) return;
    const message = updated.partial ? await updated.fetch() : updated;
    if (message.author.bot || !message.editedTimestamp) return;
    const previousText = old.partial ? undefined : (old.content ?? undefined);
    if (previousText === message.content) return;
    const inbound = await ctx.follower.route(message, admitWith(ctx));
    if (!inbound) return;
    const edit = editOf(inbound, message.editedTimestamp, previousText);
    await answerInbound(ctx.answers, edit, await ctx.handler.onMessage(edit), ctx.logger);
  } catch (err) {
    ctx.logger.error({ err: toThreadlabError(err), message: updated.id }, 'could not hand a Discord edit to the core');
  }
}

/** The handler's access check as the thread follower asks it (none: everything is admitted); a refusal is told here. */
function admitWith(ctx: GatewayMessageContext): ((message: InboundMessage) => Promise<boolean>) | undefined {
  const { handler } = ctx;
  if (!handler.admit) return undefined;
  return async (message) => {
    const admission = await handler.admit!(message);
    if (!admission.allowed && admission.tell) await tellPrivately(ctx.answers, message, admission.message, ctx.logger);
    return admission.allowed;
  };
}
