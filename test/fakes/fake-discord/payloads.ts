/**
 * Builders of Discord API payloads (API v10 shapes) for the fake gateway and REST server, and for
 * recorded-payload unit tests. Only the fields discord.js 14 reads are filled in.
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

export interface InteractionBase {
  applicationId: string;
  guildId?: string;
  channel: { id: string; type: number; parent_id?: string; guild_id?: string; name?: string };
  user: FakeUser;
  attachmentSizeLimit?: number;
  /** The member's guild role ids (`member.roles`, a string array on the wire); guild interactions only. */
  roles?: string[];
  /**
   * Where it was used (`context`: 0 a server, 1 the bot's DM, 2 another DM or a group DM).
   * @defaultValue 0 in a guild, else 1
   */
  context?: number;
  /**
   * `authorizing_integration_owners`: key "0" for a guild install (the guild's id, "0" in the bot's DM), "1" for a
   * user install (that user's id); a key only for the installs that authorised the interaction (Discord's
   * interactions/receiving-and-responding, "Authorizing Integration Owners Object"; discord-api-types
   * `APIAuthorizingIntegrationOwnersMap`). @defaultValue the guild install: `{"0": guildId}`, `{"0": "0"}` in a DM
   */
  owners?: Record<string, string>;
}

function interactionBase(options: InteractionBase, type: number): Record<string, unknown> {
  const who = options.guildId
    ? {
        guild_id: options.guildId,
        member: {
          user: options.user,
          roles: options.roles ?? [],
          permissions: '1071698660929',
          joined_at: new Date().toISOString(),
          deaf: false,
          mute: false,
          flags: 0,
        },
      }
    : { user: options.user };
  return {
    id: snowflake(),
    application_id: options.applicationId,
    type,
    channel: options.channel,
    channel_id: options.channel.id,
    ...who,
    token: `itoken-${snowflake()}`,
    version: 1,
    app_permissions: '1071698660929',
    locale: 'en-US',
    guild_locale: 'en-US',
    entitlements: [],
    authorizing_integration_owners: options.owners ?? { '0': options.guildId ?? '0' },
    context: options.context ?? (options.guildId ? 0 : 1),
    ...(options.attachmentSizeLimit !== undefined ? { attachment_size_limit: options.attachmentSizeLimit } : {}),
  };
}

/** A chat-input (slash) command interaction. */
export function slashCommand(
  options: InteractionBase & {
    name: string;
    commandId?: string;
    options?: { name: string; type: number; value: string }[];
  },
): Record<string, unknown> {
  return {
    ...interactionBase(options, 2),
    data: {
      id: options.commandId ?? snowflake(),
      name: options.name,
      type: 1,
      ...(options.options ? { options: options.options } : {}),
    },
  };
}

/** A button press on a message. */
export function buttonPress(
  options: InteractionBase & { customId: string; message: Record<string, unknown> },
): Record<string, unknown> {
  return {
    ...interactionBase(options, 3),
    data: { custom_id: options.customId, component_type: 2 },
    message: options.message,
  };
}

/**
 * A message command interaction (application command type 3: Apps → a command on a message). Discord sends the
 * target as `data.target_id` with the whole message under `data.resolved.messages`.
 */
export function messageCommand(
  options: InteractionBase & { name: string; target: Record<string, unknown>; commandId?: string },
): Record<string, unknown> {
  const targetId = String(options.target.id);
  return {
    ...interactionBase(options, 2),
    data: {
      id: options.commandId ?? snowflake(),
      name: options.name,
      type: 3,
      target_id: targetId,
      resolved: { messages: { [targetId]: options.target } },
    },
  };
}

/**
 * A modal submission (interaction type 5, MODAL_SUBMIT) as Discord's components reference shows it ("File Upload",
 * its modal submit example): each answer inside its Label (type 18), a Text Input (type 4) with its `value`, a File
 * Upload (type 19) with the uploaded files' ids in `values` and the files under `data.resolved.attachments`
 * (discord-api-types `APIModalSubmitInteraction`, `APIFileUploadComponent`).
 */
export function modalSubmit(
  options: InteractionBase & {
    customId: string;
    text: { customId: string; value: string };
    files?: { customId: string; attachments: FakeAttachment[] };
    /**
     * The modal was laid out with an Action Row (type 1) around its Text Input, as discord.js's
     * `ModalBuilder().addComponents(new ActionRowBuilder<TextInputBuilder>())` builds it: the submission carries the
     * same row (discord-api-types `ModalSubmitActionRowComponent`, components of `APIModalSubmitTextInputComponent`).
     */
    actionRow?: boolean;
  },
): Record<string, unknown> {
  const input = { type: 4, id: 2, custom_id: options.text.customId, value: options.text.value };
  const components: Record<string, unknown>[] = [
    options.actionRow ? { type: 1, id: 1, components: [input] } : { type: 18, id: 1, component: input },
  ];
  if (options.files)
    components.push({
      type: 18,
      id: 3,
      component: {
        type: 19,
        id: 4,
        custom_id: options.files.customId,
        values: options.files.attachments.map((a) => a.id),
      },
    });
  const attachments = Object.fromEntries(
    (options.files?.attachments ?? []).map((a) => [a.id, { ...a, ephemeral: true }]),
  );
  return {
    ...interactionBase(options, 5),
    data: { custom_id: options.customId, components, resolved: { attachments } },
  };
}
