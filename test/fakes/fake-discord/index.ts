import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeGateway } from './gateway.js';
import {
  buttonPressIn,
  messageCommandIn,
  modalSubmitIn,
  slashCommandIn,
  userInstallCommandIn,
  type ButtonPressUse,
  type MessageCommandUse,
  type ModalSubmitUse,
  type SlashCommandUse,
  type UserInstallCommandUse,
} from './interactions.js';
import * as payloads from './payloads.js';
import { RestRefusals, type ScriptedFailure } from './refusals.js';
import { readRequest, writeResult } from './requests.js';
import { route, type RecordedRequest } from './rest.js';
import { FakeDiscordState, type FakeDiscordOptions } from './state.js';

export { payloads };
export type { FakeDiscordOptions, RecordedRequest, ScriptedFailure };

/**
 * Whether a message the bot posted is its live status, which carries the Stop button (`threadlab_stop:…`); an
 * answer of the model carries components too (its 👍/👎 row), so "has components" no longer tells them apart.
 */
export function isLiveStatus(json: unknown): boolean {
  const components = (json as { components?: unknown } | null | undefined)?.components ?? [];
  return JSON.stringify(components).includes('"threadlab_stop:');
}

/**
 * A local Discord: gateway (ws) and REST (http) on one 127.0.0.1 port, with one guild holding a text
 * channel and a forum. Records every REST request; failures (429, 413) are scriptable.
 */
export class FakeDiscord extends FakeDiscordState {
  readonly gateway: FakeGateway;
  private readonly refusals = new RestRefusals(this);
  private readonly server: Server;
  private port = 0;

  constructor(options: FakeDiscordOptions = {}) {
    super(options);
    this.gateway = new FakeGateway(() => ({
      user: this.bot as unknown as Record<string, unknown>,
      applicationId: this.applicationId,
      resumeUrl: this.gatewayUrl,
      guilds: [this.guildPayload()],
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
    this.refusals.script(failure);
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

  /** Sends a slash command used in the guild's text channel (by `ada` unless `user` says otherwise). */
  slashCommand(o: SlashCommandUse): Record<string, unknown> {
    return this.interaction(slashCommandIn(this, o));
  }

  /**
   * Uses the message command `name` (Apps → name) on `target` (a message payload, e.g. from `userMessage`), by
   * `ada` unless `user` says otherwise; the interaction comes from the target's channel unless `channel` is given.
   */
  messageCommand(o: MessageCommandUse): Record<string, unknown> {
    return this.interaction(messageCommandIn(this, o));
  }

  /**
   * A command of the app `user` (ada) installed to her account, used where the bot is not: in a channel of
   * {@link foreignGuildId} (context 0) or in the group DM {@link groupDmChannelId} (context 2). Only key "1" of
   * `authorizing_integration_owners` is present.
   */
  userInstallCommand(o: UserInstallCommandUse): Record<string, unknown> {
    return this.interaction(userInstallCommandIn(this, o));
  }

  /**
   * Submits a modal with a text input and, when given, a File Upload's files (host them with `hostAttachment`); in
   * the guild's text channel, or where the bot is not (`where`).
   */
  modalSubmit(o: ModalSubmitUse): Record<string, unknown> {
    return this.interaction(modalSubmitIn(this, o));
  }

  /**
   * A press of the button `customId` on a message the bot posted (from {@link messages}), by `ada` unless `user`
   * says otherwise, in the message's channel (a thread carries its `parent_id`): a component interaction (type 3)
   * whose `data` is `{custom_id, component_type: 2}` and whose `message` is the message pressed (Discord's
   * interactions/receiving-and-responding, "Message Component Data Structure"; discord-api-types
   * `APIMessageComponentButtonInteraction`).
   */
  pressButton(o: ButtonPressUse): Record<string, unknown> {
    return this.interaction(buttonPressIn(this, o));
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
    const recorded = await readRequest(req, url, raw);
    const result =
      this.refusals.refusal(recorded) ??
      this.refusals.withRateLimitHeaders(recorded, route(this, recorded.method, recorded.path, recorded));
    recorded.status = result.status;
    this.requests.push(recorded);
    writeResult(res, result);
  }
}
