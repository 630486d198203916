import type { REST } from 'discord.js';
import type { InboundMessage } from '../../src/domain/messages.js';
import { DirectMessageTarget } from './dm-target.js';
import type { DiscordProgressOptions } from './progress-sink.js';
import { ChannelTarget, InteractionTarget, type InteractionSession, type ReplyTarget } from './target.js';

export interface ReplyTargetsOptions {
  /** The bot's REST client, used unless a caller passes another (the live statuses' one). */
  rest: REST;
  /** Upload limit when Discord gives none for an interaction, in bytes. */
  maxUploadBytes: number;
  /** How long an interaction's token answers, in ms (Discord: 15 minutes). @defaultValue 900000 */
  interactionTokenLifetimeMs?: number;
  /** Where the bot is no member, how long before the token's end a still-running job says so, in ms. @defaultValue 60000 */
  expiryWarningMs?: number;
}

/** Discord's interaction token lifetime ("Interaction tokens are valid for 15 minutes"), in ms. */
const TOKEN_LIFETIME_MS = 15 * 60_000;
/** Follow-ups Discord takes for an interaction of a user install used where the app is not installed. */
const USER_INSTALL_FOLLOW_UPS = 5;
/** Interactions whose shared webhook state is kept at once (each is dropped when its job's status closes). */
const MAX_SESSIONS = 1000;

/**
 * Where a message's answer, status and notices go, read from its reply context: the interaction's webhook or
 * the channel, with each interaction's follow-up count and token state shared by all of them.
 */
export class ReplyTargets {
  /** Each interaction's follow-up count and token state, shared by its answer, status and notices. */
  private readonly sessions = new Map<string, InteractionSession>();

  constructor(private readonly options: ReplyTargetsOptions) {}

  /**
   * Where a message's answer goes: the interaction's webhook for a command (the channel once its token ran out),
   * else the channel. Where the bot is no member (`webhookOnly`), nothing goes to that channel with the bot token:
   * past the token's lifetime or Discord's 5 follow-ups, the answer goes to the user's DM with the bot.
   */
  targetFor(message: InboundMessage, rest: REST = this.options.rest, o: { followUpsOnly?: boolean } = {}): ReplyTarget {
    const ctx = message.replyContext ?? {};
    const channel = new ChannelTarget(rest, typeof ctx.channelId === 'string' ? ctx.channelId : message.thread.thread);
    if (ctx.kind !== 'interaction' || typeof ctx.interactionToken !== 'string' || typeof ctx.applicationId !== 'string')
      return channel;
    const webhookOnly = ctx.webhookOnly === true;
    return new InteractionTarget(rest, {
      applicationId: ctx.applicationId,
      token: ctx.interactionToken,
      fallback: webhookOnly ? new DirectMessageTarget(rest, message.user.id) : channel,
      session: this.sessionOf(message.id),
      ...(typeof ctx.interactionAtMs === 'number' ? { expiresAtMs: ctx.interactionAtMs + this.tokenLifetimeMs } : {}),
      ...(webhookOnly ? { maxFollowUps: USER_INSTALL_FOLLOW_UPS } : {}),
      ...(o.followUpsOnly ? { followUpsOnly: true } : {}),
    });
  }

  /** The interaction's own limit when Discord gave one, else the configured limit. */
  uploadLimitFor(message: InboundMessage): number {
    const fromInteraction = message.replyContext?.attachmentSizeLimit;
    return typeof fromInteraction === 'number' && fromInteraction > 0 ? fromInteraction : this.options.maxUploadBytes;
  }

  /** Where only the interaction's token reaches the user, a job still running near its end says where the answer will go. */
  expiryNotice(message: InboundMessage): Pick<DiscordProgressOptions, 'expiryNotice'> {
    const ctx = message.replyContext ?? {};
    if (ctx.webhookOnly !== true || typeof ctx.interactionAtMs !== 'number') return {};
    const minutes = Math.round(this.tokenLifetimeMs / 60_000);
    return {
      expiryNotice: {
        atMs: ctx.interactionAtMs + this.tokenLifetimeMs - (this.options.expiryWarningMs ?? 60_000),
        target: this.targetFor(message, this.options.rest, { followUpsOnly: true }),
        text:
          `⏳ Still running. Discord lets me answer a command here for ${minutes} minutes only, and that time is ` +
          'nearly up: when it finishes, the answer comes to you in a direct message from me.',
      },
    };
  }

  /** Drops a message's interaction state once its job's status has closed. */
  forget(messageId: string): void {
    this.sessions.delete(messageId);
  }

  private get tokenLifetimeMs(): number {
    return this.options.interactionTokenLifetimeMs ?? TOKEN_LIFETIME_MS;
  }

  private sessionOf(messageId: string): InteractionSession {
    let session = this.sessions.get(messageId);
    if (!session) {
      if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
      session = { followUps: 0, expired: false };
      this.sessions.set(messageId, session);
    }
    return session;
  }
}
