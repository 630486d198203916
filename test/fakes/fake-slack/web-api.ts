import { handleAssistantMethod } from './assistant-methods.js';
import { invalidBlocksAnswer } from './block-checks.js';
import type { FakeSlackState } from './state.js';

export interface FakeIdentity {
  botToken: string;
  appToken: string;
  teamId: string;
  botUserId: string;
  botId: string;
  baseUrl: string;
}

type Args = Record<string, unknown>;
type Result = Record<string, unknown>;

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

/**
 * Answers one Web API method the way Slack does (`{ok: true, …}` or `{ok: false, error}`), updating state.
 * Only the methods Threadlab uses; anything else is `unknown_method`.
 */
export function handleMethod(
  state: FakeSlackState,
  id: FakeIdentity,
  method: string,
  args: Args,
  token: string | undefined,
): Result {
  if (method === 'apps.connections.open') {
    if (token !== id.appToken) return { ok: false, error: 'invalid_auth' };
    return { ok: true, url: `${id.baseUrl.replace(/^http/, 'ws')}/socket/link?ticket=fake` };
  }
  if (token !== id.botToken) return { ok: false, error: 'invalid_auth' };
  const missing = state.unsupported.get(method);
  if (missing?.error === 'missing_scope')
    return {
      ok: false,
      error: 'missing_scope',
      needed: missing.needed ?? 'chat:write',
      provided: 'chat:write,commands',
    };
  if (missing) return { ok: false, error: missing.error };
  if (
    ['chat.postMessage', 'chat.postEphemeral', 'chat.update', 'files.completeUploadExternal'].includes(method) &&
    (state.channelsWithoutBot.has(str(args.channel)) || state.channelsWithoutBot.has(str(args.channel_id)))
  )
    return { ok: false, error: 'not_in_channel' };
  if (['chat.postMessage', 'chat.postEphemeral', 'chat.update'].includes(method)) {
    const invalid = invalidBlocksAnswer(args.blocks);
    if (invalid) return invalid;
  }
  const assistant = handleAssistantMethod(state, id, method, args);
  if (assistant) return assistant;
  switch (method) {
    case 'auth.test':
      return {
        ok: true,
        url: 'https://threadlab.slack.com/',
        team: 'Threadlab',
        user: 'threadlab',
        team_id: id.teamId,
        user_id: id.botUserId,
        bot_id: id.botId,
        is_enterprise_install: false,
      };
    case 'chat.postMessage': {
      if (!args.channel) return { ok: false, error: 'channel_not_found' };
      const ts = state.nextTs();
      const message = {
        channel: str(args.channel),
        ts,
        ...(args.thread_ts ? { thread_ts: str(args.thread_ts) } : {}),
        text: str(args.text),
        blocks: (args.blocks as unknown[]) ?? [],
        deleted: false,
        updates: 0,
      };
      state.messages.push(message);
      return {
        ok: true,
        channel: message.channel,
        ts,
        message: {
          type: 'message',
          text: message.text,
          user: id.botUserId,
          bot_id: id.botId,
          ts,
          thread_ts: message.thread_ts,
        },
      };
    }
    case 'chat.update': {
      const m = state.messages.find((x) => x.channel === args.channel && x.ts === args.ts && !x.deleted);
      if (!m) return { ok: false, error: 'message_not_found' };
      m.text = str(args.text);
      m.blocks = (args.blocks as unknown[]) ?? m.blocks;
      m.updates += 1;
      return { ok: true, channel: m.channel, ts: m.ts, text: m.text };
    }
    case 'chat.delete': {
      const m = state.messages.find((x) => x.channel === args.channel && x.ts === args.ts && !x.deleted);
      if (!m) return { ok: false, error: 'message_not_found' };
      m.deleted = true;
      return { ok: true, channel: m.channel, ts: m.ts };
    }
    case 'chat.postEphemeral':
      if (!args.channel || !args.user) return { ok: false, error: 'invalid_arguments' };
      return { ok: true, message_ts: state.nextTs() };
    case 'usergroups.users.list': {
      const members = state.userGroups.get(str(args.usergroup));
      return members ? { ok: true, users: members } : { ok: false, error: 'no_such_subteam' };
    }
    case 'users.info': {
      const user = str(args.user);
      if (!/^[UW][A-Z0-9]+$/.test(user)) return { ok: false, error: 'user_not_found' };
      const tz = state.userTimeZones.get(user);
      return { ok: true, user: { id: user, name: user.toLowerCase(), ...(tz ? { tz } : {}) } };
    }
    case 'conversations.info': {
      // Name and membership only (channels:read / groups:read); what the bot cannot see is channel_not_found.
      const channel = state.channels.get(str(args.channel));
      if (!channel) return { ok: false, error: 'channel_not_found' };
      return {
        ok: true,
        channel: {
          id: str(args.channel),
          name: channel.name,
          is_channel: !channel.isPrivate,
          is_private: channel.isPrivate === true,
          is_member: channel.isMember,
        },
      };
    }
    case 'reactions.add':
    case 'reactions.remove':
      return { ok: true };
    case 'conversations.replies': {
      const root = str(args.ts);
      const messages = state.messages.filter(
        (m) => m.channel === args.channel && !m.deleted && (m.ts === root || m.thread_ts === root),
      );
      return {
        ok: true,
        messages: messages.map((m) => ({
          type: 'message',
          ts: m.ts,
          thread_ts: m.thread_ts,
          text: m.text,
          bot_id: id.botId,
        })),
        has_more: false,
      };
    }
    case 'files.info': {
      const file = state.files.get(str(args.file));
      if (!file) return { ok: false, error: 'file_not_found' };
      return { ok: true, file: describeFile(id.baseUrl, file) };
    }
    case 'files.getUploadURLExternal': {
      const length = Number(args.length);
      if (!args.filename || !Number.isFinite(length)) return { ok: false, error: 'invalid_arguments' };
      const fileId = state.nextFileId();
      state.uploads.push({
        fileId,
        filename: str(args.filename),
        length,
        bytes: undefined,
        altText: args.alt_text ? str(args.alt_text) : undefined,
        snippetType: args.snippet_type ? str(args.snippet_type) : undefined,
        completed: false,
      });
      return { ok: true, upload_url: `${id.baseUrl}/upload/${fileId}`, file_id: fileId };
    }
    case 'files.completeUploadExternal': {
      const files = (args.files as { id: string; title?: string }[] | undefined) ?? [];
      const out = [];
      for (const f of files) {
        const upload = state.uploads.find((u) => u.fileId === f.id);
        if (!upload || !upload.bytes) return { ok: false, error: 'file_not_found' };
        upload.completed = true;
        upload.title = f.title;
        if (args.channel_id) upload.channelId = str(args.channel_id);
        if (args.thread_ts) upload.threadTs = str(args.thread_ts);
        out.push({
          id: upload.fileId,
          title: f.title ?? upload.filename,
          name: upload.filename,
          size: upload.bytes.length,
        });
      }
      return { ok: true, files: out };
    }
    default:
      return { ok: false, error: 'unknown_method' };
  }
}

export function describeFile(
  baseUrl: string,
  file: { id: string; name: string; mimetype: string; data: Buffer },
): Record<string, unknown> {
  return {
    id: file.id,
    name: file.name,
    title: file.name,
    mimetype: file.mimetype,
    filetype: file.name.split('.').pop() ?? 'binary',
    size: file.data.length,
    url_private: `${baseUrl}/files/${file.id}/${encodeURIComponent(file.name)}`,
    url_private_download: `${baseUrl}/files/${file.id}/download/${encodeURIComponent(file.name)}`,
  };
}
