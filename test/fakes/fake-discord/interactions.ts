import {
  buttonPress,
  messageCommand,
  modalSubmit,
  slashCommand,
  type FakeAttachment,
  type FakeUser,
  type InteractionBase,
} from './payloads.js';

/** The places of the fake's world an interaction can come from, and who uses it by default. */
export interface InteractionPlaces {
  readonly applicationId: string;
  readonly guildId: string;
  readonly textChannelId: string;
  readonly dmChannelId: string;
  readonly foreignGuildId: string;
  readonly foreignChannelId: string;
  readonly groupDmChannelId: string;
  readonly human: FakeUser;
  readonly channels: Map<string, Record<string, unknown>>;
}

type CommandOptions = { name: string; type: number; value: string }[];
type InteractionChannel = { id: string; type: number; parent_id?: string };

/** A slash command used in the guild's text channel. */
export interface SlashCommandUse {
  name: string;
  options?: CommandOptions;
  /** @defaultValue ada */
  user?: FakeUser;
  roles?: string[];
}

/** A message command (Apps → name) used on a message. */
export interface MessageCommandUse {
  name: string;
  /** The message it is used on (a message payload, e.g. from `userMessage`). */
  target: Record<string, unknown>;
  /** @defaultValue ada */
  user?: FakeUser;
  roles?: string[];
  /** @defaultValue the target's channel */
  channel?: InteractionChannel;
}

/** A command of the app a user installed to their account, used where the bot is not. */
export interface UserInstallCommandUse {
  name: string;
  options?: CommandOptions;
  /** @defaultValue 'guild' (a channel of the foreign guild) */
  where?: 'guild' | 'groupDm';
  /** @defaultValue ada */
  user?: FakeUser;
}

/** A modal submitted with a text input and, when given, a File Upload's files. */
export interface ModalSubmitUse {
  customId: string;
  text: { customId: string; value: string };
  files?: { customId: string; attachments: FakeAttachment[] };
  /** @defaultValue 'own' (the bot's guild) */
  where?: 'own' | 'guild' | 'groupDm';
  /** @defaultValue ada */
  user?: FakeUser;
  /** The channel it was submitted in (a thread of the guild, say). @defaultValue the guild's text channel */
  channel?: InteractionChannel;
  /** The modal's Text Input sat in an Action Row (see payloads.modalSubmit). */
  actionRow?: boolean;
}

/** A press of a button on a message the bot posted. */
export interface ButtonPressUse {
  message: Record<string, unknown>;
  customId: string;
  /** @defaultValue ada */
  user?: FakeUser;
}

export function slashCommandIn(places: InteractionPlaces, o: SlashCommandUse): Record<string, unknown> {
  return slashCommand({
    applicationId: places.applicationId,
    guildId: places.guildId,
    channel: { id: places.textChannelId, type: 0 },
    user: o.user ?? places.human,
    name: o.name,
    ...(o.options ? { options: o.options } : {}),
    ...(o.roles ? { roles: o.roles } : {}),
  });
}

export function messageCommandIn(places: InteractionPlaces, o: MessageCommandUse): Record<string, unknown> {
  return messageCommand({
    ...usedIn(places, String(o.target.channel_id), o.user ?? places.human, o.channel),
    name: o.name,
    target: o.target,
    ...(o.roles ? { roles: o.roles } : {}),
  });
}

export function userInstallCommandIn(places: InteractionPlaces, o: UserInstallCommandUse): Record<string, unknown> {
  return slashCommand({
    ...userInstallBase(places, o.where ?? 'guild', o.user ?? places.human),
    name: o.name,
    ...(o.options ? { options: o.options } : {}),
  });
}

export function modalSubmitIn(places: InteractionPlaces, o: ModalSubmitUse): Record<string, unknown> {
  const user = o.user ?? places.human;
  const where =
    !o.where || o.where === 'own'
      ? {
          applicationId: places.applicationId,
          guildId: places.guildId,
          channel: o.channel ?? { id: places.textChannelId, type: 0 },
          user,
        }
      : userInstallBase(places, o.where, user);
  return modalSubmit({
    ...where,
    customId: o.customId,
    text: o.text,
    ...(o.files ? { files: o.files } : {}),
    ...(o.actionRow ? { actionRow: true } : {}),
  });
}

export function buttonPressIn(places: InteractionPlaces, o: ButtonPressUse): Record<string, unknown> {
  return buttonPress({
    ...usedIn(places, String(o.message.channel_id), o.user ?? places.human),
    customId: o.customId,
    message: o.message,
  });
}

/**
 * An interaction used by `user` in a known channel (a thread carries its `parent_id`; the bot's DM is type 1 and has
 * no guild), or as coming from `channel` when given.
 */
function usedIn(
  places: InteractionPlaces,
  channelId: string,
  user: FakeUser,
  channel?: InteractionChannel,
): InteractionBase {
  const dm = channelId === places.dmChannelId;
  const known = places.channels.get(channelId) as { type?: number; parent_id?: string } | undefined;
  const own = {
    id: channelId,
    type: dm ? 1 : (known?.type ?? 0),
    ...(known?.parent_id ? { parent_id: known.parent_id } : {}),
  };
  return {
    applicationId: places.applicationId,
    ...(dm ? {} : { guildId: places.guildId }),
    channel: channel ?? own,
    user,
  };
}

/** Where a user install's interaction comes from: only key "1" of `authorizing_integration_owners` is present. */
function userInstallBase(places: InteractionPlaces, where: 'guild' | 'groupDm', user: FakeUser): InteractionBase {
  const owners = { '1': user.id };
  if (where === 'groupDm')
    return {
      applicationId: places.applicationId,
      channel: { id: places.groupDmChannelId, type: 3, name: 'lunch crew' },
      user,
      context: 2,
      owners,
    };
  return {
    applicationId: places.applicationId,
    guildId: places.foreignGuildId,
    channel: { id: places.foreignChannelId, type: 0, guild_id: places.foreignGuildId, name: 'elsewhere' },
    user,
    context: 0,
    owners,
  };
}
