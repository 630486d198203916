import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeGateway } from './gateway.js';
import * as payloads from './payloads.js';
import { FakeRateLimits } from './rate-limits.js';
import { route, type RecordedRequest, type RestResult, type RestState } from './rest.js';

export { payloads };
export type { RecordedRequest };

/**
 * Whether a message the bot posted is its live status, which carries the Stop button (`threadlab_stop:…`); an
 * answer of the model carries components too (its 👍/👎 row), so "has components" no longer tells them apart.
 */
export function isLiveStatus(json: unknown): boolean {
  const components = (json as { components?: unknown } | null | undefined)?.components ?? [];
  return JSON.stringify(components).includes('"threadlab_stop:');
}

/** A scripted failure: the next `times` requests matching `method` and `path` get this answer. */
export interface ScriptedFailure {
  method?: string;
  path: RegExp;
  times: number;
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** A 429 that holds the request's bucket this long, as Discord does (`status` and `body` are then ignored). */
  retryAfterS?: number;
}

export interface FakeDiscordOptions {
  /** Largest file accepted in one upload; bigger files get 413 `{code: 40005}`. @defaultValue 10 MiB */
  uploadLimitBytes?: number;
  /**
   * How long an interaction's token works, in ms: later webhook calls get 401 `{code: 50027}` (Invalid Webhook
   * Token). Discord: "Interaction tokens are valid for 15 minutes". @defaultValue 900000
   */
  interactionTokenLifetimeMs?: number;
}

/** Follow-ups Discord takes for an interaction of a user install used where the app is not installed (docs: "Create Followup Message"). */
const USER_INSTALL_FOLLOW_UPS = 5;

/**
 * A local Discord: gateway (ws) and REST (http) on one 127.0.0.1 port, with one guild holding a text
 * channel and a forum. Records every REST request; failures (429, 413) are scriptable.
 */
export class FakeDiscord implements RestState {
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
  readonly tokens = new Map<string, { atMs: number; userInstallOnly: boolean; followUps: number }>();
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
  readonly gateway: FakeGateway;
  uploadLimitBytes: number;
  private readonly failures: ScriptedFailure[] = [];
  private readonly rateLimits = new FakeRateLimits();
  private readonly server: Server;
  private port = 0;

  constructor(options: FakeDiscordOptions = {}) {
    this.uploadLimitBytes = options.uploadLimitBytes ?? 10 * 1024 * 1024;
    this.interactionTokenLifetimeMs = options.interactionTokenLifetimeMs ?? 15 * 60_000;
    this.channels.set(this.textChannelId, payloads.textChannel(this.textChannelId, this.guildId, 'general'));
    this.channels.set(this.otherTextChannelId, payloads.textChannel(this.otherTextChannelId, this.guildId, 'random'));
    this.channels.set(this.forumChannelId, payloads.textChannel(this.forumChannelId, this.guildId, 'help-forum', 15));
    this.dmChannels.set(this.human.id, this.dmChannelId);
    this.gateway = new FakeGateway(() => ({
      user: this.bot as unknown as Record<string, unknown>,
      applicationId: this.applicationId,
      resumeUrl: this.gatewayUrl,
      guilds: [
        payloads.guild({
          id: this.guildId,
          name: 'Lab',
          ownerId: this.human.id,
          bot: this.bot,
          roles: [{ id: this.roleId, name: 'analysts' }],
          channels: [...this.channels.values()].filter((c) => c.type !== 11 && c.type !== 12),
          threads: [...this.channels.values()].filter((c) => c.type === 11 || c.type === 12),
        }),
      ],
    }));
    this.server = createServer((req, res) => void this.onRequest(req, res));
    this.server.on('upgrade', (req, socket, head) => {
      if ((req.url ?? '').startsWith('/gateway')) this.gateway.handleUpgrade(req, socket, head);
      else socket.destroy();
    });
  }

  /** REST base for discord.js: `rest: { api: fake.apiUrl }`. */
  get apiUrl(): string {
    return `http://127.0.0.1:${this.port}/api`;
  }

  get gatewayUrl(): string {
    return `ws://127.0.0.1:${this.port}/gateway`;
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.gateway.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  dispatch(t: string, d: unknown): void {
    this.gateway.dispatch(t, d);
  }

  /** Scripts failures of matching requests (checked in order, before routing). */
  fail(failure: ScriptedFailure): void {
    this.failures.push(failure);
  }

  /**
   * Answers the next `times` matching requests with a 429 carrying the headers Discord sends, holding the
   * request's bucket (that route, that channel or webhook) for `retryAfterS`: anything sent to the bucket
   * before then gets another 429, as on Discord.
   */
  rateLimit(options: { method?: string; path: RegExp; times?: number; retryAfterS?: number }): void {
    this.fail({
      ...(options.method ? { method: options.method } : {}),
      path: options.path,
      times: options.times ?? 1,
      status: 429,
      body: undefined,
      retryAfterS: options.retryAfterS ?? 0.2,
    });
  }

  /** Serves bytes at a 127.0.0.1 URL, as the CDN serves attachments; returns the attachment payload. */
  hostAttachment(filename: string, data: Buffer, contentType: string): payloads.FakeAttachment {
    const id = payloads.snowflake();
    this.files.set(id, { data, contentType });
    const url = `http://127.0.0.1:${this.port}/attachments/${id}/${encodeURIComponent(filename)}`;
    return { id, filename, size: data.length, url, proxy_url: url, content_type: contentType };
  }

  /** Sends a user's message through the gateway; returns the payload. */
  userMessage(options: {
    channelId: string;
    content: string;
    attachments?: payloads.FakeAttachment[];
    mentionBot?: boolean;
    author?: payloads.FakeUser;
    /** The author's guild role ids, as `member.roles` carries them. */
    roles?: string[];
    /** The id of the message this one replies to (Discord's reply: type 19 with `message_reference`). */
    replyTo?: string;
  }): Record<string, unknown> {
    const dm = options.channelId === this.dmChannelId;
    const msg = payloads.message({
      channelId: options.channelId,
      author: options.author ?? this.human,
      content: options.content,
      ...(options.mentionBot ? { mentions: [this.bot] } : {}),
      ...(options.attachments ? { attachments: options.attachments } : {}),
      ...(dm ? { channelType: 1 } : { guildId: this.guildId }),
      ...(options.roles ? { roles: options.roles } : {}),
    });
    if (options.replyTo) {
      const referenced = this.messages.get(options.replyTo);
      msg.type = 19;
      msg.message_reference = {
        type: 0,
        message_id: options.replyTo,
        channel_id: options.channelId,
        ...(dm ? {} : { guild_id: this.guildId }),
      };
      if (referenced) msg.referenced_message = referenced;
    }
    this.messages.set(String(msg.id), msg);
    this.dispatch('MESSAGE_CREATE', msg);
    return msg;
  }

  /**
   * Edits a user's message as Discord does: MESSAGE_UPDATE with the new content and `edited_timestamp`.
   * `partial` sends only what a partial update carries (id, channel, guild, content, edited_timestamp),
   * so the client has to fetch the rest; `author` claims another author.
   */
  editMessage(
    original: Record<string, unknown>,
    content: string,
    o: { partial?: boolean; author?: payloads.FakeUser } = {},
  ): Record<string, unknown> {
    const stored = this.messages.get(String(original.id)) ?? original;
    const edited = {
      ...stored,
      content,
      edited_timestamp: new Date().toISOString(),
      ...(o.author ? { author: o.author } : {}),
    };
    this.messages.set(String(original.id), edited);
    const { id, channel_id, guild_id, edited_timestamp } = edited as Record<string, unknown>;
    const update = o.partial
      ? { id, channel_id, ...(guild_id ? { guild_id } : {}), content, edited_timestamp }
      : edited;
    this.dispatch('MESSAGE_UPDATE', update);
    return edited;
  }

  /** Sends an interaction through the gateway, remembering its channel for the webhook routes. */
  interaction(payload: Record<string, unknown>): Record<string, unknown> {
    this.interactionOriginals.set(String(payload.token), { channel_id: payload.channel_id });
    const owners = (payload.authorizing_integration_owners ?? {}) as Record<string, string>;
    this.tokens.set(String(payload.token), {
      atMs: Date.now(),
      userInstallOnly: owners['1'] !== undefined && owners['0'] === undefined,
      followUps: 0,
    });
    this.dispatch('INTERACTION_CREATE', payload);
    return payload;
  }

  /** The messages the bot posted into `userId`'s DM channel, oldest first. */
  directMessagesTo(userId: string): Record<string, unknown>[] {
    const channelId = this.dmChannels.get(userId);
    return [...this.messages.values()].filter((m) => m.channel_id === channelId && channelId !== undefined);
  }

  /** Sends a slash command used in the guild's text channel (by `ada` unless `user` says otherwise). */
  slashCommand(o: {
    name: string;
    options?: { name: string; type: number; value: string }[];
    user?: payloads.FakeUser;
    roles?: string[];
  }): Record<string, unknown> {
    return this.interaction(
      payloads.slashCommand({
        applicationId: this.applicationId,
        guildId: this.guildId,
        channel: { id: this.textChannelId, type: 0 },
        user: o.user ?? this.human,
        name: o.name,
        ...(o.options ? { options: o.options } : {}),
        ...(o.roles ? { roles: o.roles } : {}),
      }),
    );
  }

  /**
   * Uses the message command `name` (Apps → name) on `target` (a message payload, e.g. from `userMessage`), by
   * `ada` unless `user` says otherwise; the interaction comes from the target's channel unless `channel` is given.
   */
  messageCommand(o: {
    name: string;
    target: Record<string, unknown>;
    user?: payloads.FakeUser;
    roles?: string[];
    channel?: { id: string; type: number; parent_id?: string };
  }): Record<string, unknown> {
    const { dm, channel: own } = this.channelOf(String(o.target.channel_id));
    const channel = o.channel ?? own;
    return this.interaction(
      payloads.messageCommand({
        applicationId: this.applicationId,
        ...(dm ? {} : { guildId: this.guildId }),
        channel,
        user: o.user ?? this.human,
        name: o.name,
        target: o.target,
        ...(o.roles ? { roles: o.roles } : {}),
      }),
    );
  }

  /**
   * A command of the app `user` (ada) installed to her account, used where the bot is not: in a channel of
   * {@link foreignGuildId} (context 0) or in the group DM {@link groupDmChannelId} (context 2). Only key "1" of
   * `authorizing_integration_owners` is present.
   */
  userInstallCommand(o: {
    name: string;
    options?: { name: string; type: number; value: string }[];
    where?: 'guild' | 'groupDm';
    user?: payloads.FakeUser;
  }): Record<string, unknown> {
    return this.interaction(
      payloads.slashCommand({
        ...this.userInstallBase(o.where ?? 'guild', o.user ?? this.human),
        name: o.name,
        ...(o.options ? { options: o.options } : {}),
      }),
    );
  }

  /**
   * Submits a modal with a text input and, when given, a File Upload's files (host them with `hostAttachment`); in
   * the guild's text channel, or where the bot is not (`where`).
   */
  modalSubmit(o: {
    customId: string;
    text: { customId: string; value: string };
    files?: { customId: string; attachments: payloads.FakeAttachment[] };
    where?: 'own' | 'guild' | 'groupDm';
    user?: payloads.FakeUser;
    /** The channel it was submitted in (a thread of the guild, say). @defaultValue the guild's text channel */
    channel?: { id: string; type: number; parent_id?: string };
    /** The modal's Text Input sat in an Action Row (see payloads.modalSubmit). */
    actionRow?: boolean;
  }): Record<string, unknown> {
    const user = o.user ?? this.human;
    const where =
      !o.where || o.where === 'own'
        ? {
            applicationId: this.applicationId,
            guildId: this.guildId,
            channel: o.channel ?? { id: this.textChannelId, type: 0 },
            user,
          }
        : this.userInstallBase(o.where, user);
    return this.interaction(
      payloads.modalSubmit({
        ...where,
        customId: o.customId,
        text: o.text,
        ...(o.files ? { files: o.files } : {}),
        ...(o.actionRow ? { actionRow: true } : {}),
      }),
    );
  }

  /**
   * A press of the button `customId` on a message the bot posted (from {@link messages}), by `ada` unless `user`
   * says otherwise, in the message's channel (a thread carries its `parent_id`): a component interaction (type 3)
   * whose `data` is `{custom_id, component_type: 2}` and whose `message` is the message pressed (Discord's
   * interactions/receiving-and-responding, "Message Component Data Structure"; discord-api-types
   * `APIMessageComponentButtonInteraction`).
   */
  pressButton(o: {
    message: Record<string, unknown>;
    customId: string;
    user?: payloads.FakeUser;
  }): Record<string, unknown> {
    const { dm, channel } = this.channelOf(String(o.message.channel_id));
    return this.interaction(
      payloads.buttonPress({
        applicationId: this.applicationId,
        ...(dm ? {} : { guildId: this.guildId }),
        channel,
        user: o.user ?? this.human,
        customId: o.customId,
        message: o.message,
      }),
    );
  }

  /** A known channel as an interaction carries it (a thread with its `parent_id`; the bot's DM is type 1). */
  private channelOf(channelId: string): { dm: boolean; channel: { id: string; type: number; parent_id?: string } } {
    const dm = channelId === this.dmChannelId;
    const known = this.channels.get(channelId) as { type?: number; parent_id?: string } | undefined;
    const channel = {
      id: channelId,
      type: dm ? 1 : (known?.type ?? 0),
      ...(known?.parent_id ? { parent_id: known.parent_id } : {}),
    };
    return { dm, channel };
  }

  /** Requests made with the bot token (an Authorization header) whose path names `id` (a channel, a guild). */
  botTokenCallsAbout(id: string): RecordedRequest[] {
    return this.requests.filter((r) => r.headers.authorization !== undefined && r.path.includes(id));
  }

  private userInstallBase(where: 'guild' | 'groupDm', user: payloads.FakeUser): payloads.InteractionBase {
    const owners = { '1': user.id };
    if (where === 'groupDm')
      return {
        applicationId: this.applicationId,
        channel: { id: this.groupDmChannelId, type: 3, name: 'lunch crew' },
        user,
        context: 2,
        owners,
      };
    return {
      applicationId: this.applicationId,
      guildId: this.foreignGuildId,
      channel: { id: this.foreignChannelId, type: 0, guild_id: this.foreignGuildId, name: 'elsewhere' },
      user,
      context: 0,
      owners,
    };
  }

  /** Polls the recorded requests until `predicate` matches one (or throws after `timeoutMs`). */
  async waitForRequest(predicate: (r: RecordedRequest) => boolean, timeoutMs = 10_000): Promise<RecordedRequest> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.requests.find(predicate);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(
          `no matching Discord request within ${timeoutMs} ms; saw:\n${this.requests.map((r) => `${r.status} ${r.method} ${r.path}`).join('\n')}`,
        );
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    if (url.pathname.startsWith('/attachments/')) {
      const file = this.files.get(url.pathname.split('/')[2] ?? '');
      res
        .writeHead(file ? 200 : 404, { 'content-type': file?.contentType ?? 'text/plain' })
        .end(file?.data ?? 'not found');
      return;
    }
    const path = decodeURIComponent(url.pathname.replace(/^\/api\/v\d+/, ''));
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path,
      query: Object.fromEntries(url.searchParams),
      headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
      json: undefined,
      files: [],
      status: 0,
      atMs: Date.now(),
    };
    await parseBody(recorded, raw);
    const result = this.answer(recorded);
    recorded.status = result.status;
    this.requests.push(recorded);
    if (result.status === 204) {
      res.writeHead(204, result.headers ?? {}).end();
      return;
    }
    res
      .writeHead(result.status, { 'content-type': 'application/json', ...result.headers })
      .end(JSON.stringify(result.body ?? {}));
  }

  private answer(recorded: RecordedRequest): RestResult {
    if (recorded.path.startsWith(`/channels/${this.hiddenChannelId}`))
      return { status: 403, body: { message: 'Missing Access', code: 50001 } };
    const away = [this.foreignChannelId, this.groupDmChannelId, this.foreignGuildId];
    if (away.some((id) => recorded.path.startsWith(`/channels/${id}`) || recorded.path.startsWith(`/guilds/${id}`)))
      return { status: 403, body: { message: 'Missing Access', code: 50001 } };
    const refused = this.tokenRefusal(recorded);
    if (refused) return refused;
    const held = this.rateLimits.refusal(recorded.method, recorded.path);
    if (held) return held;
    const failure = this.failures.find(
      (f) => f.times > 0 && f.path.test(recorded.path) && (!f.method || f.method === recorded.method),
    );
    if (failure) {
      failure.times -= 1;
      if (failure.retryAfterS !== undefined)
        return this.rateLimits.limit(recorded.method, recorded.path, failure.retryAfterS);
      return { status: failure.status, body: failure.body, ...(failure.headers ? { headers: failure.headers } : {}) };
    }
    const tooLarge = recorded.files.find((f) => f.data.length > this.uploadLimitBytes);
    if (tooLarge) return { status: 413, body: { message: 'Request entity too large', code: 40005 } };
    const result = route(this, recorded.method, recorded.path, recorded);
    const limits = this.rateLimits.headers(recorded.method, recorded.path);
    return { ...result, headers: { ...limits, ...result.headers } };
  }

  /**
   * Discord's rules for an interaction's token: it answers for {@link interactionTokenLifetimeMs} (then 401, code
   * 50027 Invalid Webhook Token), and an interaction only a user install authorised takes 5 follow-ups ("Apps are
   * limited to 5 followup messages per interaction if it was initiated from a user-installed app and isn't installed
   * in the server": docs, "Create Followup Message"; the docs name no error code for the sixth, so 400 with code 0).
   */
  private tokenRefusal(recorded: RecordedRequest): RestResult | undefined {
    const p = recorded.path.split('/').filter(Boolean);
    const token =
      p[0] === 'webhooks' && p[1] === this.applicationId ? p[2] : p[0] === 'interactions' ? p[2] : undefined;
    const issued = token ? this.tokens.get(token) : undefined;
    if (!issued) return undefined;
    if (Date.now() - issued.atMs > this.interactionTokenLifetimeMs)
      return { status: 401, body: { message: 'Invalid Webhook Token', code: 50027 } };
    if (p[0] !== 'webhooks' || p.length !== 3 || recorded.method !== 'POST') return undefined;
    if (issued.userInstallOnly && issued.followUps >= USER_INSTALL_FOLLOW_UPS)
      return { status: 400, body: { message: 'Maximum number of follow-up messages reached', code: 0 } };
    issued.followUps += 1;
    return undefined;
  }
}

async function parseBody(recorded: RecordedRequest, raw: Buffer): Promise<void> {
  const type = recorded.headers['content-type'] ?? '';
  if (raw.length === 0) return;
  if (type.startsWith('application/json')) {
    recorded.json = JSON.parse(raw.toString('utf8'));
    return;
  }
  if (type.startsWith('multipart/form-data')) {
    const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': type } }).formData();
    for (const [field, value] of form as unknown as Iterable<[string, string | File]>) {
      if (field === 'payload_json' && typeof value === 'string') recorded.json = JSON.parse(value);
      else if (typeof value !== 'string') {
        recorded.files.push({
          field,
          filename: value.name,
          contentType: value.type,
          data: Buffer.from(await value.arrayBuffer()),
        });
      }
    }
  }
}
