/**
 * Gateway payloads as Discord sends them (API v10), trimmed to realistic fields, and a discord.js Client
 * (never logged in) that turns them into the structures the adapter receives.
 */
import { Client, Partials, type Message } from 'discord.js';

export const BOT_ID = '1180000000000000001';
export const GUILD_ID = '1180000000000000010';
export const TEXT_ID = '1180000000000000020';
export const FORUM_ID = '1180000000000000030';
export const FORUM_POST_ID = '1180000000000000031';
export const BOT_THREAD_ID = '1180000000000000040';
export const DM_ID = '1180000000000000050';

export const ada = {
  id: '1180000000000000100',
  username: 'ada',
  global_name: 'Ada L.',
  discriminator: '0',
  avatar: null,
};
export const otherBot = {
  id: '1180000000000000200',
  username: 'helper',
  global_name: null,
  discriminator: '0',
  avatar: null,
  bot: true,
};

const channel = (id: string, type: number, name: string, extra: Record<string, unknown> = {}) => ({
  id,
  type,
  name,
  position: 0,
  permission_overwrites: [],
  parent_id: null,
  flags: 0,
  ...extra,
});
const threadMeta = {
  archived: false,
  auto_archive_duration: 1440,
  archive_timestamp: '2026-11-22T10:00:00.000000+00:00',
  locked: false,
};

export const guildCreate = {
  id: GUILD_ID,
  name: 'Lab',
  icon: null,
  owner_id: ada.id,
  roles: [
    {
      id: GUILD_ID,
      name: '@everyone',
      permissions: '1071698660929',
      position: 0,
      color: 0,
      hoist: false,
      managed: false,
      mentionable: false,
      flags: 0,
    },
  ],
  emojis: [],
  stickers: [],
  features: [],
  channels: [channel(TEXT_ID, 0, 'general'), channel(FORUM_ID, 15, 'questions')],
  threads: [
    channel(FORUM_POST_ID, 11, 'How do I pivot?', {
      guild_id: GUILD_ID,
      parent_id: FORUM_ID,
      owner_id: ada.id,
      thread_metadata: threadMeta,
      message_count: 3,
      member_count: 2,
    }),
    channel(BOT_THREAD_ID, 11, 'plot sales', {
      guild_id: GUILD_ID,
      parent_id: TEXT_ID,
      owner_id: BOT_ID,
      thread_metadata: threadMeta,
      message_count: 5,
      member_count: 2,
    }),
  ],
  members: [],
  member_count: 2,
  joined_at: '2026-11-01T10:00:00.000000+00:00',
  large: false,
  unavailable: false,
  voice_states: [],
  presences: [],
};

/** A MESSAGE_CREATE payload. */
export function messageCreate(options: {
  id?: string;
  channelId: string;
  content: string;
  guild?: boolean;
  author?: Record<string, unknown>;
  mentions?: Record<string, unknown>[];
  attachments?: Record<string, unknown>[];
  channelType?: number;
}) {
  return {
    type: 0,
    tts: false,
    timestamp: '2026-11-22T19:00:00.000000+00:00',
    pinned: false,
    nonce: '1180000000000099999',
    mentions: options.mentions ?? [],
    mention_roles: [],
    mention_everyone: false,
    id: options.id ?? '1180000000000001000',
    flags: 0,
    embeds: [],
    edited_timestamp: null,
    content: options.content,
    components: [],
    channel_id: options.channelId,
    author: options.author ?? ada,
    attachments: options.attachments ?? [],
    ...(options.guild === false
      ? {}
      : {
          guild_id: GUILD_ID,
          member: { roles: [], joined_at: '2026-11-01T10:00:00.000000+00:00', deaf: false, mute: false, flags: 0 },
        }),
    ...(options.channelType !== undefined ? { channel_type: options.channelType } : {}),
  };
}

export const csvAttachment = {
  id: '1180000000000005000',
  filename: 'sales 2026.csv',
  size: 48213,
  url: 'https://cdn.discordapp.com/attachments/1/2/sales_2026.csv?ex=1&is=2&hm=abc',
  proxy_url: 'https://media.discordapp.net/attachments/1/2/sales_2026.csv',
  content_type: 'text/csv; charset=utf-8',
};

/** discord.js caches' internal `_add`, which the gateway handlers use to build structures from payloads. */
interface Cache {
  _add(data: unknown): unknown;
}

/** A client that never connects, holding the guild above in its cache. */
export function offlineClient(): Client {
  const client = new Client({ intents: [], partials: [Partials.Channel] });
  (client.guilds as unknown as Cache)._add(guildCreate);
  return client;
}

/** The discord.js Message for a payload, as the gateway handler would receive it. */
export function toMessage(client: Client, payload: ReturnType<typeof messageCreate>): Message {
  const target =
    client.channels.cache.get(payload.channel_id) ??
    (client.channels as unknown as Cache)._add({
      id: payload.channel_id,
      type: payload.channel_type ?? 1,
      recipients: [payload.author],
    });
  return (target as unknown as { messages: Cache }).messages._add(payload) as Message;
}
