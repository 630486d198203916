import { MessageFlags, Routes, type CommandInteraction, type ModalSubmitInteraction, type REST } from 'discord.js';
import { toThreadlabError } from '../../src/domain/errors.js';
import type { InboundMessage } from '../../src/domain/messages.js';
import type { Logger } from '../../src/logger.js';
import { restFailure } from './target.js';

/** Discord's code for "Cannot send messages to this user" (the user closed DMs from server members). */
export const DMS_CLOSED = 50007;

/** Nobody is pinged by a notice: it quotes nothing, but the help text is the admin's free text. */
const NO_MENTIONS: { parse: [] } = { parse: [] };

export interface PrivateNoticeOptions {
  rest: REST;
  logger: Logger;
  /**
   * The slash command interactions not acknowledged yet (the adapter asks the core whether to admit one
   * before deferring it), by inbound message id: a refusal is then their first, ephemeral, response.
   */
  pending: ReadonlyMap<string, CommandInteraction | ModalSubmitInteraction>;
}

/**
 * Tells the user of `message` something only they see: for a slash command an ephemeral response, for a
 * message a direct message. Resolves false when Discord would not take it (DMs closed: code 50007, an
 * expired token), so the caller can say it in the thread instead.
 */
export async function notifyPrivately(
  options: PrivateNoticeOptions,
  message: InboundMessage,
  text: string,
): Promise<boolean> {
  const ctx = message.replyContext ?? {};
  const log = options.logger.child({ user: message.user.id, event: message.id });
  try {
    if (ctx.kind === 'interaction' && typeof ctx.interactionToken === 'string' && typeof ctx.applicationId === 'string')
      await notifyInteraction(
        options,
        message.id,
        { applicationId: ctx.applicationId, token: ctx.interactionToken },
        text,
      );
    else await sendDirectMessage(options.rest, message.user.id, text);
    return true;
  } catch (err) {
    const dmsClosed = restFailure(err).code === DMS_CLOSED;
    if (dmsClosed) log.info('the user accepts no direct messages; the notice goes to the thread');
    else log.warn({ err: toThreadlabError(err) }, 'could not tell the user privately');
    return false;
  }
}

/**
 * An interaction not yet acknowledged gets the notice as its ephemeral response, so nothing public appears.
 * One already deferred (publicly: the adapter defers once the core admitted it) loses its public
 * "thinking…" placeholder, and the notice follows ephemerally.
 */
async function notifyInteraction(
  options: PrivateNoticeOptions,
  messageId: string,
  webhook: { applicationId: string; token: string },
  text: string,
): Promise<void> {
  const live = options.pending.get(messageId);
  if (live && !live.deferred && !live.replied) {
    await live.reply({ content: text, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
    return;
  }
  const { applicationId, token } = webhook;
  await options.rest
    .delete(Routes.webhookMessage(applicationId, token, '@original'), { auth: false })
    .catch(() => undefined); // nothing public to remove (never deferred, or already answered and gone)
  await options.rest.post(Routes.webhook(applicationId, token), {
    body: { content: text, flags: MessageFlags.Ephemeral, allowed_mentions: NO_MENTIONS },
    auth: false,
  });
}

/** Opens (or finds) the DM channel with the user and posts into it. */
async function sendDirectMessage(rest: REST, userId: string, text: string): Promise<void> {
  const dm = (await rest.post(Routes.userChannels(), { body: { recipient_id: userId } })) as { id?: unknown };
  if (typeof dm.id !== 'string') throw new Error('Discord opened no DM channel');
  await rest.post(Routes.channelMessages(dm.id), { body: { content: text, allowed_mentions: NO_MENTIONS } });
}
