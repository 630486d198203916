import type { InteractionPlaces } from './interactions.js';
import * as payloads from './payloads.js';
import type { InteractionTokens, RefusalState } from './refusals.js';
import type { RecordedRequest, RestState } from './rest.js';

export interface FakeDiscordOptions {
  /** Largest file accepted in one upload; bigger files get 413 `{code: 40005}`. @defaultValue 10 MiB */
  uploadLimitBytes?: number;
  /**
   * How long an interaction's token works, in ms: later webhook calls get 401 `{code: 50027}` (Invalid Webhook
   * Token). Discord: "Interaction tokens are valid for 15 minutes". @defaultValue 900000
   */
  interactionTokenLifetimeMs?: number;
}

/**
 * What the fake Discord holds: its people, one guild with a text channel, a forum and a role, the places the bot
 * cannot reach, the messages, channels, commands and files the REST routes change, and every request recorded.
 * FakeDiscord serves it over REST and the gateway.
 */
export abstract class FakeDiscordState implements RestState, RefusalState, InteractionPlaces {
  readonly bot = payloads.user(payloads.snowflake(), 'threadlab', true);
  readonly human = payloads.user(payloads.snowflake(), 'ada');
  readonly applicationId = this.bot.id;
  readonly guildId = payloads.snowflake();
  readonly textChannelId = payloads.snowflake();
  readonly forumChannelId = payloads.snowflake();
  /** A second text channel, for tests that tell channels apart (access allowlists). */
  readonly otherTextChannelId = payloads.snowflake();
  readonly dmChannelId = payloads.snowflake();
  /**
   * A channel of the guild the bot cannot see (no View Channel): absent from its GUILD_CREATE, and every REST
   * call about it answers 403 Missing Access (50001), as Discord does. People can still use commands there.
   */
  readonly hiddenChannelId = payloads.snowflake();
  /**
   * A server the bot is not in, where `ada` uses the app she installed to her account, and a group DM of people:
   * every bot-token call about them answers 403 Missing Access (50001); only an interaction's webhook reaches them.
   */
  readonly foreignGuildId = payloads.snowflake();
  readonly foreignChannelId = payloads.snowflake();
  readonly groupDmChannelId = payloads.snowflake();
  /** Each interaction token: when it was issued, whether only a user install authorised it, its follow-ups. */
  readonly tokens: InteractionTokens = new Map();
  interactionTokenLifetimeMs: number;
  readonly requests: RecordedRequest[] = [];
  readonly messages = new Map<string, Record<string, unknown>>();
  readonly channels = new Map<string, Record<string, unknown>>();
  readonly commands = new Map<string, unknown[]>();
  readonly interactionOriginals = new Map<string, Record<string, unknown>>();
  readonly files = new Map<string, { data: Buffer; contentType: string }>();
  readonly dmChannels = new Map<string, string>();
  readonly dmsClosed = new Set<string>();
  /** A guild role (besides @everyone) members can be given: `userMessage({ roles })`, `slashCommand({ roles })`. */
  readonly roleId = payloads.snowflake();
  uploadLimitBytes: number;

  constructor(options: FakeDiscordOptions = {}) {
    this.uploadLimitBytes = options.uploadLimitBytes ?? 10 * 1024 * 1024;
    this.interactionTokenLifetimeMs = options.interactionTokenLifetimeMs ?? 15 * 60_000;
    this.channels.set(this.textChannelId, payloads.textChannel(this.textChannelId, this.guildId, 'general'));
    this.channels.set(this.otherTextChannelId, payloads.textChannel(this.otherTextChannelId, this.guildId, 'random'));
    this.channels.set(this.forumChannelId, payloads.textChannel(this.forumChannelId, this.guildId, 'help-forum', 15));
    this.dmChannels.set(this.human.id, this.dmChannelId);
  }

  /** The gateway's URL, which REST's `GET /gateway` answers and READY names for resuming. */
  abstract get gatewayUrl(): string;

  /** Sends a dispatch event to the bot through the gateway. */
  abstract dispatch(t: string, d: unknown): void;

  /** The guild as GUILD_CREATE carries it after READY: its channels, and its threads apart. */
  guildPayload(): Record<string, unknown> {
    return payloads.guild({
      id: this.guildId,
      name: 'Lab',
      ownerId: this.human.id,
      bot: this.bot,
      roles: [{ id: this.roleId, name: 'analysts' }],
      channels: [...this.channels.values()].filter((c) => c.type !== 11 && c.type !== 12),
      threads: [...this.channels.values()].filter((c) => c.type === 11 || c.type === 12),
    });
  }

  /** The messages the bot posted into `userId`'s DM channel, oldest first. */
  directMessagesTo(userId: string): Record<string, unknown>[] {
    const channelId = this.dmChannels.get(userId);
    return [...this.messages.values()].filter((m) => m.channel_id === channelId && channelId !== undefined);
  }

  /** Requests made with the bot token (an Authorization header) whose path names `id` (a channel, a guild). */
  botTokenCallsAbout(id: string): RecordedRequest[] {
    return this.requests.filter((r) => r.headers.authorization !== undefined && r.path.includes(id));
  }
}
