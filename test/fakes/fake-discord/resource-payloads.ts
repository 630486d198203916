/**
 * Builders of Discord's resources (API v10 shapes: users, channels, threads, a guild, messages) for the fake
 * gateway and REST server. Only the fields discord.js 14 reads are filled in.
 */

let counter = 0n;
/** A fresh snowflake-like id (numeric string), unique within the process. */
export function snowflake(): string {
  counter += 1n;
  return ((BigInt(Date.now() - 1420070400000) << 22n) + counter).toString();
}

export interface FakeUser {
  id: string;
  username: string;
  global_name: string | null;
  discriminator: string;
  avatar: string | null;
  bot?: boolean;
}

export function user(id: string, username: string, bot = false): FakeUser {
  return {
    id,
    username,
    global_name: bot ? null : username,
    discriminator: '0',
    avatar: null,
    ...(bot ? { bot: true } : {}),
  };
}

export function textChannel(id: string, guildId: string, name: string, type = 0): Record<string, unknown> {
  return {
    id,
    type,
    guild_id: guildId,
    name,
    position: 0,
    permission_overwrites: [],
    nsfw: false,
    parent_id: null,
    topic: null,
    last_message_id: null,
    rate_limit_per_user: 0,
    flags: 0,
  };
}

/** A thread channel (type 11 public, 12 private). */
export function thread(options: {
  id: string;
  guildId: string;
  parentId: string;
  name: string;
  ownerId: string;
  type?: number;
}): Record<string, unknown> {
  return {
    id: options.id,
    type: options.type ?? 11,
    guild_id: options.guildId,
    parent_id: options.parentId,
    owner_id: options.ownerId,
    name: options.name,
    last_message_id: null,
    rate_limit_per_user: 0,
    message_count: 0,
    member_count: 1,
    flags: 0,
    total_message_sent: 0,
    thread_metadata: {
      archived: false,
      auto_archive_duration: 1440,
      archive_timestamp: new Date().toISOString(),
      locked: false,
      create_timestamp: new Date().toISOString(),
    },
  };
}

export function guild(options: {
  id: string;
  name: string;
  ownerId: string;
  bot: FakeUser;
  channels: Record<string, unknown>[];
  threads?: Record<string, unknown>[];
  /** Roles besides @everyone (whose id is the guild's). */
  roles?: { id: string; name: string }[];
}): Record<string, unknown> {
  const now = new Date().toISOString();
  return {
    id: options.id,
    name: options.name,
    icon: null,
    splash: null,
    discovery_splash: null,
    owner_id: options.ownerId,
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    roles: [
      {
        id: options.id,
        name: '@everyone',
        color: 0,
        hoist: false,
        position: 0,
        permissions: '1071698660929',
        managed: false,
        mentionable: false,
        flags: 0,
      },
      ...(options.roles ?? []).map((r, i) => ({
        id: r.id,
        name: r.name,
        color: 0,
        hoist: false,
        position: i + 1,
        permissions: '0',
        managed: false,
        mentionable: false,
        flags: 0,
      })),
    ],
    emojis: [],
    stickers: [],
    features: [],
    mfa_level: 0,
    application_id: null,
    system_channel_id: null,
    system_channel_flags: 0,
    rules_channel_id: null,
    vanity_url_code: null,
    description: null,
    banner: null,
    premium_tier: 0,
    preferred_locale: 'en-US',
    public_updates_channel_id: null,
    nsfw_level: 0,
    premium_progress_bar_enabled: false,
    joined_at: now,
    large: false,
    unavailable: false,
    member_count: 2,
    voice_states: [],
    members: [{ user: options.bot, roles: [], joined_at: now, deaf: false, mute: false, flags: 0 }],
    channels: options.channels.map((c) => ({ ...c, guild_id: undefined })),
    threads: options.threads ?? [],
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}

export interface FakeAttachment {
  id: string;
  filename: string;
  size: number;
  url: string;
  proxy_url: string;
  content_type?: string;
}

export function message(options: {
  id?: string;
  channelId: string;
  guildId?: string;
  author: FakeUser;
  content: string;
  mentions?: FakeUser[];
  attachments?: FakeAttachment[];
  channelType?: number;
  /** The author's guild role ids (`member.roles`); guild messages only. */
  roles?: string[];
}): Record<string, unknown> {
  return {
    id: options.id ?? snowflake(),
    type: 0,
    channel_id: options.channelId,
    ...(options.guildId
      ? {
          guild_id: options.guildId,
          member: {
            roles: options.roles ?? [],
            joined_at: new Date().toISOString(),
            deaf: false,
            mute: false,
            flags: 0,
          },
        }
      : {}),
    ...(options.channelType !== undefined ? { channel_type: options.channelType } : {}),
    author: options.author,
    content: options.content,
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: options.mentions ?? [],
    mention_roles: [],
    attachments: options.attachments ?? [],
    embeds: [],
    pinned: false,
    flags: 0,
    components: [],
  };
}
