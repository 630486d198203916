import { Routes, type REST } from 'discord.js';
import { ThreadlabError } from '../../src/domain/errors.js';

/** A file of an outgoing message. */
export interface OutgoingFile {
  name: string;
  mime: string;
  data: Buffer;
  /** Alt text / description shown by Discord (at most 1,024 characters). */
  description?: string;
}

/** One Discord message to send: content of at most 2,000 characters and at most 10 files. */
export interface OutgoingMessage {
  content: string;
  files: OutgoingFile[];
  /** Message components (the Stop button); an empty list removes them. */
  components?: unknown[];
}

/** Where the messages of one reply go: a channel (thread or DM), or an interaction's webhook. */
export interface ReplyTarget {
  /** The channel the messages appear in. */
  readonly channelId: string;
  /** Posts a message and returns its id; an interaction's first post completes its deferred reply. */
  post(message: OutgoingMessage): Promise<string>;
  /** Edits a message posted through this target (`@original` is the interaction's reply). */
  edit(messageId: string, message: Partial<OutgoingMessage>): Promise<void>;
  remove(messageId: string): Promise<void>;
  typing(): Promise<void>;
}

/** The status and Discord code of a REST failure, when it is one. */
export function restFailure(err: unknown): { status?: number; code?: number | string } {
  if (typeof err !== 'object' || err === null) return {};
  const e = err as { status?: unknown; code?: unknown };
  return {
    ...(typeof e.status === 'number' ? { status: e.status } : {}),
    ...(typeof e.code === 'number' || typeof e.code === 'string' ? { code: e.code } : {}),
  };
}

/** Whether Discord refused a message because an attachment was too large (413, code 40005). */
export function isTooLarge(err: unknown): boolean {
  const f = restFailure(err);
  return f.status === 413 || f.code === 40005;
}

/** Converts a REST failure to `platform_api` once; URLs are left out (webhook URLs hold a token). */
export function platformError(err: unknown, what: string): ThreadlabError {
  if (err instanceof ThreadlabError) return err;
  const f = restFailure(err);
  const message = err instanceof Error ? err.message : String(err);
  return new ThreadlabError('platform_api', `Discord refused to ${what}: ${message}`, {
    cause: err,
    isRetryable: f.status !== undefined && f.status >= 500,
    details: { status: f.status, code: f.code },
  });
}

function body(message: Partial<OutgoingMessage>): {
  body: Record<string, unknown>;
  files?: { name: string; data: Buffer; contentType: string }[];
} {
  const out: Record<string, unknown> = { allowed_mentions: { parse: [] } };
  if (message.content !== undefined) out.content = message.content;
  if (message.components !== undefined) out.components = message.components;
  if (message.files === undefined) return { body: out };
  out.attachments = message.files.map((f, i) => ({
    id: i,
    filename: f.name,
    ...(f.description ? { description: f.description.slice(0, 1024) } : {}),
  }));
  return { body: out, files: message.files.map((f) => ({ name: f.name, data: f.data, contentType: f.mime })) };
}

/** Messages in a channel (a thread or a DM), sent with the bot token. */
export class ChannelTarget implements ReplyTarget {
  constructor(
    private readonly rest: REST,
    readonly channelId: string,
  ) {}

  async post(message: OutgoingMessage): Promise<string> {
    const created = (await this.rest.post(Routes.channelMessages(this.channelId), body(message))) as { id: string };
    return created.id;
  }

  async edit(messageId: string, message: Partial<OutgoingMessage>): Promise<void> {
    await this.rest.patch(Routes.channelMessage(this.channelId, messageId), body(message));
  }

  async remove(messageId: string): Promise<void> {
    await this.rest.delete(Routes.channelMessage(this.channelId, messageId));
  }

  async typing(): Promise<void> {
    await this.rest.post(Routes.channelTyping(this.channelId));
  }
}

/** Discord codes of an interaction token that no longer works (15 minutes passed). */
const EXPIRED_CODES: readonly (number | string)[] = [10015, 50027];

/** Calls this close to the token's end go to the fallback: a request on the wire must not outlive its token, in ms. */
const EXPIRY_MARGIN_MS = 5_000;

/** What the targets of one interaction share: follow-ups sent so far, and whether its token still works. */
export interface InteractionSession {
  followUps: number;
  expired: boolean;
}

export interface InteractionTargetOptions {
  applicationId: string;
  token: string;
  /** Where messages go once the token no longer works: the channel, or the user's DM where the bot is no member. */
  fallback: ReplyTarget;
  /** Shared by the targets of one interaction (answer, status, notices). @defaultValue a new session */
  session?: InteractionSession;
  /** When the token stops working, epoch ms; from {@link EXPIRY_MARGIN_MS} before, calls go to the fallback. @defaultValue never */
  expiresAtMs?: number;
  /** Follow-ups Discord takes for this interaction; later posts go to the fallback. @defaultValue unlimited */
  maxFollowUps?: number;
  /** Every post is a follow-up, the deferred reply left alone (a notice, an approval prompt). @defaultValue false */
  followUpsOnly?: boolean;
}

/**
 * An interaction's deferred reply and its follow-ups, through the webhook routes (no bot token: a worker can
 * finish it, and it reaches places the bot is not in). Falls back once the token has expired, or is about to,
 * and for posts past Discord's follow-up limit.
 */
export class InteractionTarget implements ReplyTarget {
  private originalUsed: boolean;
  private readonly session: InteractionSession;

  constructor(
    private readonly rest: REST,
    private readonly options: InteractionTargetOptions,
  ) {
    this.originalUsed = options.followUpsOnly ?? false;
    this.session = options.session ?? { followUps: 0, expired: false };
  }

  get channelId(): string {
    return this.options.fallback.channelId;
  }

  /** Whether the token is spent (or within the margin of its end). */
  get expired(): boolean {
    const { expiresAtMs } = this.options;
    if (expiresAtMs !== undefined && Date.now() >= expiresAtMs - EXPIRY_MARGIN_MS) this.session.expired = true;
    return this.session.expired;
  }

  async post(message: OutgoingMessage): Promise<string> {
    const { applicationId, token, maxFollowUps, fallback } = this.options;
    const followUp = this.originalUsed;
    if (this.expired || (followUp && maxFollowUps !== undefined && this.session.followUps >= maxFollowUps))
      return fallback.post(message);
    return this.orFallback(
      async () => {
        if (!followUp) {
          await this.rest.patch(Routes.webhookMessage(applicationId, token, '@original'), {
            ...body({ components: [], ...message }),
            auth: false,
          });
          this.originalUsed = true;
          return '@original';
        }
        this.session.followUps += 1;
        const created = (await this.rest.post(Routes.webhook(applicationId, token), {
          ...body(message),
          query: new URLSearchParams({ wait: 'true' }),
          auth: false,
        })) as { id: string };
        return created.id;
      },
      () => fallback.post(message),
    );
  }

  async edit(messageId: string, message: Partial<OutgoingMessage>): Promise<void> {
    if (this.expired) return;
    await this.orFallback(
      () =>
        this.rest.patch(Routes.webhookMessage(this.options.applicationId, this.options.token, messageId), {
          ...body(message),
          auth: false,
        }),
      async () => undefined,
    );
  }

  async remove(messageId: string): Promise<void> {
    if (this.expired) return;
    await this.rest.delete(Routes.webhookMessage(this.options.applicationId, this.options.token, messageId), {
      auth: false,
    });
  }

  async typing(): Promise<void> {
    // The deferred reply already shows "thinking…".
  }

  private async orFallback<T>(attempt: () => Promise<T>, fallback: () => Promise<T>): Promise<T> {
    try {
      return await attempt();
    } catch (err) {
      const f = restFailure(err);
      if (f.status !== 401 && !(f.code !== undefined && EXPIRED_CODES.includes(f.code))) throw err;
      this.session.expired = true;
      return fallback();
    }
  }
}
