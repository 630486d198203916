import type {
  ChatInputCommandInteraction,
  Message,
  MessageContextMenuCommandInteraction,
  ModalSubmitInteraction,
} from 'discord.js';
import type { CommandView } from './map-interaction.js';
import type { MessageCommandView } from './map-message-command.js';
import type { MessageView } from './map-message.js';
import { memberRoleIds } from './member-roles.js';
import { MODAL_FILES_ID, MODAL_TEXT_ID, type ModalView } from './modal.js';

/** The facts of a discord.js message the mapping needs (the only place that reads discord.js structures). */
export function viewFromMessage(message: Message): MessageView {
  const channel = message.channel;
  return {
    id: message.id,
    content: message.content ?? '',
    createdAtMs: message.createdTimestamp,
    author: {
      id: message.author.id,
      name: message.author.globalName ?? message.author.username,
      bot: message.author.bot || Boolean(message.webhookId),
    },
    guildId: message.guildId ?? null,
    channel: {
      id: message.channelId,
      type: channel.type,
      parentId: 'parentId' in channel ? (channel.parentId ?? null) : null,
    },
    mentionedUserIds: [...message.mentions.users.keys()],
    ...optionalRoles(memberRoleIds(message.member, message.guildId ?? null)),
    attachments: attachmentsOf(message),
  };
}

function attachmentsOf(message: Message): MessageView['attachments'] {
  return [...message.attachments.values()].map((a) => ({
    id: a.id,
    filename: a.name,
    size: a.size,
    url: a.url,
    contentType: a.contentType ?? null,
  }));
}

/** The facts of a message command (Apps → Run code): the command's, and the message it targets. */
export function viewFromMessageCommand(interaction: MessageContextMenuCommandInteraction): MessageCommandView {
  const { options: _options, ...command } = viewFromCommand(interaction);
  const target = interaction.targetMessage;
  return {
    ...command,
    target: {
      id: target.id,
      content: target.content ?? '',
      author: { id: target.author.id, bot: target.author.bot || Boolean(target.webhookId) },
      attachments: attachmentsOf(target),
    },
  };
}

/** The facts of a slash command interaction (or a message command's, with no options). */
export function viewFromCommand(
  interaction: ChatInputCommandInteraction | MessageContextMenuCommandInteraction | ModalSubmitInteraction,
): CommandView {
  const options: Record<string, string> = {};
  for (const option of interaction.isChatInputCommand() ? interaction.options.data : []) {
    if (typeof option.value === 'string') options[option.name] = option.value;
  }
  const owners = interaction.authorizingIntegrationOwners;
  const channel = interaction.channel;
  const raw = channel ?? null;
  return {
    id: interaction.id,
    token: interaction.token,
    applicationId: interaction.applicationId,
    commandName: interaction.isModalSubmit() ? '' : interaction.commandName,
    options,
    guildId: interaction.guildId ?? null,
    channel: {
      id: interaction.channelId ?? '',
      type: raw?.type ?? 0,
      parentId: raw && 'parentId' in raw ? (raw.parentId ?? null) : null,
    },
    user: {
      id: interaction.user.id,
      name: interaction.user.globalName ?? interaction.user.username,
      bot: interaction.user.bot,
    },
    createdAtMs: interaction.createdTimestamp,
    ...optionalRoles(memberRoleIds(interaction.member, interaction.guildId ?? null)),
    ...(typeof interaction.attachmentSizeLimit === 'number'
      ? { attachmentSizeLimit: interaction.attachmentSizeLimit }
      : {}),
    ...(typeof interaction.context === 'number' ? { context: interaction.context } : {}),
    owners: {
      ...(owners?.guildId != null ? { guild: owners.guildId } : {}),
      ...(owners?.userId != null ? { user: owners.userId } : {}),
    },
  };
}

/** The facts of a modal submission: the interaction's, its text input and its File Upload's files (at most 100 read). */
export function viewFromModal(interaction: ModalSubmitInteraction): ModalView {
  const { commandName: _name, options: _options, ...view } = viewFromCommand(interaction);
  const field = interaction.fields.fields.get(MODAL_TEXT_ID);
  const text = field && 'value' in field && typeof field.value === 'string' ? field.value : '';
  const uploaded = interaction.fields.fields.get(MODAL_FILES_ID);
  const files = uploaded && 'attachments' in uploaded && uploaded.attachments ? [...uploaded.attachments.values()] : [];
  return {
    ...view,
    customId: interaction.customId,
    text,
    files: files.slice(0, 100).map((a) => ({
      id: a.id,
      filename: a.name,
      size: a.size,
      url: a.url,
      contentType: a.contentType ?? null,
    })),
  };
}

const optionalRoles = (roles: string[] | undefined): { roles?: string[] } => (roles ? { roles } : {});
