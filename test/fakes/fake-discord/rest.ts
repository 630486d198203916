import { message as messagePayload, snowflake, thread as threadPayload, type FakeUser } from './payloads.js';

/** A parsed JSON body: recorded wire data of any shape, read field by field by tests. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire data of any shape
export type JsonBody = any;

/** One REST request as the fake saw it. Paths are decoded and relative to `/api/v10`. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** The JSON body, or `payload_json` of a multipart body. */
  json: JsonBody;
  /** Files of a multipart body, in field order (`files[0]`, `files[1]`, …). */
  files: { field: string; filename: string; contentType: string; data: Buffer }[];
  status: number;
  atMs: number;
}

export interface RestResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The state REST routes read and change; implemented by FakeDiscord. */
export interface RestState {
  readonly bot: FakeUser;
  readonly applicationId: string;
  readonly gatewayUrl: string;
  readonly messages: Map<string, Record<string, unknown>>;
  readonly channels: Map<string, Record<string, unknown>>;
  readonly commands: Map<string, unknown[]>;
  readonly interactionOriginals: Map<string, Record<string, unknown>>;
  /** The DM channel of each user the bot opened one with (`POST /users/@me/channels`), by user id. */
  readonly dmChannels: Map<string, string>;
  /** Users who accept no DMs from server members: messages into their DM channel get 403 code 50007. */
  readonly dmsClosed: Set<string>;
  dispatch(t: string, d: unknown): void;
}

const json = (status: number, body: unknown): RestResult => ({ status, body });
const noContent: RestResult = { status: 204 };

function botMessage(
  state: RestState,
  channelId: string,
  body: JsonBody,
  files: RecordedRequest['files'],
  id = snowflake(),
): Record<string, unknown> {
  const channel = state.channels.get(channelId);
  const base = messagePayload({
    id,
    channelId,
    author: state.bot,
    content: String(body?.content ?? ''),
    ...(channel?.guild_id ? { guildId: String(channel.guild_id) } : {}),
  });
  return {
    ...base,
    components: body?.components ?? [],
    embeds: body?.embeds ?? [],
    attachments: files.map((f, i) => ({
      id: snowflake(),
      filename: f.filename,
      size: f.data.length,
      url: `http://127.0.0.1/att/${i}/${f.filename}`,
      proxy_url: '',
      content_type: f.contentType,
    })),
    ...(body?.flags !== undefined ? { flags: body.flags } : {}),
  };
}

function createThread(state: RestState, parentId: string, body: JsonBody, fromMessageId?: string): RestResult {
  const parent = state.channels.get(parentId);
  if (!parent) return json(404, { message: 'Unknown Channel', code: 10003 });
  if (fromMessageId) {
    const msg = state.messages.get(fromMessageId);
    if (msg?.thread) return json(400, { message: 'A thread has already been created for this message', code: 160004 });
  }
  const id = fromMessageId ?? snowflake();
  const created = threadPayload({
    id,
    guildId: String(parent.guild_id),
    parentId,
    name: String(body?.name ?? 'thread'),
    ownerId: state.bot.id,
    type: body?.type ?? 11,
  });
  state.channels.set(id, created);
  if (fromMessageId) {
    const msg = state.messages.get(fromMessageId);
    if (msg) msg.thread = created;
  }
  state.dispatch('THREAD_CREATE', {
    ...created,
    newly_created: true,
    member: { id, user_id: state.bot.id, join_timestamp: new Date().toISOString(), flags: 0 },
  });
  return json(201, created);
}

/**
 * `POST /users/@me/channels {recipient_id}`: the DM channel with that user, the same one each time (as
 * Discord does); opening it succeeds even when the user's DMs are closed, the message then fails.
 */
function openDm(state: RestState, body: JsonBody): RestResult {
  const recipient = String(body?.recipient_id ?? '');
  if (!/^\d{15,22}$/.test(recipient))
    return json(400, { message: 'Invalid Form Body', code: 50035, errors: { recipient_id: { _errors: [] } } });
  let id = state.dmChannels.get(recipient);
  if (!id) {
    id = snowflake();
    state.dmChannels.set(recipient, id);
  }
  const channel = {
    id,
    type: 1,
    last_message_id: null,
    flags: 0,
    recipients: [{ ...state.bot, id: recipient, username: `user-${recipient}`, bot: false }],
  };
  return json(200, channel);
}

/** Answers one REST request against the fake's state. */
export function route(state: RestState, method: string, path: string, req: RecordedRequest): RestResult {
  const p = path.split('/').filter(Boolean);
  const body = req.json;
  if (method === 'GET' && path === '/gateway/bot') {
    return json(200, {
      url: state.gatewayUrl,
      shards: 1,
      session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 },
    });
  }
  if (method === 'GET' && path === '/gateway') return json(200, { url: state.gatewayUrl });
  if (method === 'GET' && path === '/users/@me') return json(200, state.bot);
  if (method === 'POST' && path === '/users/@me/channels') return openDm(state, body);
  if (p[0] === 'channels' && p[1]) {
    const channelId = p[1];
    if (p.length === 2 && method === 'GET') {
      const channel = state.channels.get(channelId);
      return channel ? json(200, channel) : json(404, { message: 'Unknown Channel', code: 10003 });
    }
    if (p[2] === 'typing' && method === 'POST') return noContent;
    if (p[2] === 'thread-members') return noContent;
    if (p[2] === 'threads' && method === 'POST') return createThread(state, channelId, body);
    if (p[2] === 'messages') {
      const messageId = p[3];
      if (!messageId && method === 'POST') {
        if ([...state.dmChannels].some(([userId, id]) => id === channelId && state.dmsClosed.has(userId)))
          return json(403, { message: 'Cannot send messages to this user', code: 50007 });
        const created = botMessage(state, channelId, body, req.files);
        state.messages.set(String(created.id), created);
        state.dispatch('MESSAGE_CREATE', created);
        return json(200, created);
      }
      if (messageId && p[4] === 'threads' && method === 'POST') return createThread(state, channelId, body, messageId);
      const existing = messageId ? state.messages.get(messageId) : undefined;
      if (!existing) return json(404, { message: 'Unknown Message', code: 10008 });
      if (method === 'GET') return json(200, existing);
      if (method === 'DELETE') {
        state.messages.delete(messageId!);
        return noContent;
      }
      if (method === 'PATCH') {
        const edited = {
          ...existing,
          ...botMessage(state, channelId, { ...existing, ...body }, req.files, messageId),
          edited_timestamp: new Date().toISOString(),
        };
        state.messages.set(messageId!, edited);
        // Discord sends the bot its own edits too.
        state.dispatch('MESSAGE_UPDATE', edited);
        return json(200, edited);
      }
    }
  }
  if (p[0] === 'interactions' && p[3] === 'callback' && method === 'POST') {
    const token = p[2]!;
    const channelId = String(state.interactionOriginals.get(token)?.channel_id ?? '0');
    const original = botMessage(state, channelId, body?.data ?? {}, req.files);
    state.interactionOriginals.set(token, original);
    return req.query.with_response === 'true'
      ? json(200, { interaction: { id: p[1] }, resource: { type: body?.type, message: original } })
      : noContent;
  }
  if (p[0] === 'webhooks' && p[1] === state.applicationId && p[2]) {
    const token = p[2];
    const original = state.interactionOriginals.get(token);
    const channelId = String(original?.channel_id ?? '0');
    if (p[3] === 'messages' && p[4] === '@original') {
      if (!original) return json(404, { message: 'Unknown Webhook', code: 10015 });
      if (method === 'GET') return json(200, original);
      if (method === 'DELETE') return noContent;
      const edited = { ...botMessage(state, channelId, { ...original, ...body }, req.files, String(original.id)) };
      state.interactionOriginals.set(token, edited);
      return json(200, edited);
    }
    if (p.length === 3 && method === 'POST') {
      const created = botMessage(state, channelId, body, req.files);
      state.messages.set(String(created.id), created);
      return req.query.wait === 'true' ? json(200, created) : noContent;
    }
    if (p[3] === 'messages' && p[4] && method === 'PATCH') {
      const existing = state.messages.get(p[4]);
      if (!existing) return json(404, { message: 'Unknown Message', code: 10008 });
      const edited = botMessage(state, channelId, { ...existing, ...body }, req.files, p[4]);
      state.messages.set(p[4], edited);
      return json(200, edited);
    }
  }
  if (p[0] === 'applications' && p[1] === state.applicationId && method === 'PUT') {
    const scope = p[2] === 'guilds' ? `guild:${p[3]}` : 'global';
    const registered = (Array.isArray(body) ? body : []).map((c: Record<string, unknown>) => ({
      ...c,
      id: snowflake(),
      application_id: state.applicationId,
      version: snowflake(),
    }));
    state.commands.set(scope, registered);
    return json(200, registered);
  }
  return json(404, { message: `404: Not Found (${method} ${path})`, code: 0 });
}
