/**
 * Builders of Discord's interactions (API v10 shapes: slash and message commands, button presses, modal
 * submissions), as the gateway delivers them in INTERACTION_CREATE. Only the fields discord.js 14 reads are filled in.
 */
import { snowflake, type FakeAttachment, type FakeUser } from './resource-payloads.js';

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
