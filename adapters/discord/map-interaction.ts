import { LANGUAGES } from '../../src/domain/execution.js';
import type { InboundCommand, InboundMessage } from '../../src/domain/messages.js';
import type { ThreadRef } from '../../src/domain/thread-key.js';
import { isThreadType } from './map-message.js';

/** The facts of a slash-command interaction: plain data, built from discord.js or a recorded payload. */
export interface CommandView {
  id: string;
  token: string;
  applicationId: string;
  commandName: string;
  /** String options by name (`code`, `language`). */
  options: Record<string, string>;
  guildId: string | null;
  channel: { id: string; type: number; parentId: string | null };
  user: { id: string; name: string; bot: boolean };
  createdAtMs: number;
  /** Upload limit Discord gives for this interaction, in bytes, when it gives one. */
  attachmentSizeLimit?: number;
  /** The invoking member's guild role ids (bounded, snowflakes only: member-roles.ts); absent in DMs. */
  roles?: string[];
}

/** The command of a slash interaction, or undefined for a command Threadlab does not know. */
export function commandFromView(view: CommandView): InboundCommand | undefined {
  switch (view.commandName) {
    case 'run': {
      // A choice Discord offered (commands.ts); anything else in a payload is python, the default.
      const language = LANGUAGES.find((l) => l === view.options.language) ?? 'python';
      return { name: 'run', language, code: view.options.code ?? '' };
    }
    case 'reset':
      return { name: 'reset' };
    case 'files':
      return { name: 'files' };
    case 'help':
      return { name: 'help' };
    case 'export':
      return { name: 'export' };
    case 'usage':
      return { name: 'usage' };
    case 'schedule':
      return { name: 'schedule', text: (view.options.what ?? '').slice(0, 4000) };
    default:
      return undefined;
  }
}

/**
 * Where a command's session lives: the thread it was used in, or the channel itself (a channel-wide
 * session) outside threads; a DM's channel in direct messages.
 */
export function commandThreadRef(view: CommandView): ThreadRef {
  if (view.guildId === null)
    return { platform: 'discord', workspace: 'dm', channel: view.channel.id, thread: view.channel.id };
  if (isThreadType(view.channel.type)) {
    return {
      platform: 'discord',
      workspace: view.guildId,
      channel: view.channel.parentId ?? view.channel.id,
      thread: view.channel.id,
    };
  }
  return { platform: 'discord', workspace: view.guildId, channel: view.channel.id, thread: view.channel.id };
}

/**
 * The InboundMessage of a slash command. `replyContext` carries the interaction token and application
 * id, so whoever answers can complete the deferred reply through the webhook routes.
 */
export function toCommandMessage(view: CommandView): InboundMessage | undefined {
  const command = commandFromView(view);
  if (!command) return undefined;
  return {
    id: `discord:interaction:${view.id}`,
    thread: commandThreadRef(view),
    user: {
      id: view.user.id,
      name: view.user.name,
      isBot: view.user.bot,
      ...(view.roles ? { roles: view.roles } : {}),
    },
    text:
      command.name === 'run'
        ? command.code
        : command.name === 'schedule'
          ? `/schedule ${command.text}`
          : `/${command.name}`,
    attachments: [],
    command,
    receivedAtMs: view.createdAtMs,
    replyContext: interactionReplyContext(view),
  };
}

/** Where an interaction is answered: its token (webhook edits within 15 minutes) and the channel it was used in. */
export function interactionReplyContext(
  view: Pick<CommandView, 'id' | 'channel' | 'applicationId' | 'token' | 'createdAtMs' | 'attachmentSizeLimit'>,
): InboundMessage['replyContext'] {
  return {
    kind: 'interaction',
    channelId: view.channel.id,
    applicationId: view.applicationId,
    interactionId: view.id,
    interactionToken: view.token,
    interactionAtMs: view.createdAtMs,
    attachmentSizeLimit: view.attachmentSizeLimit ?? null,
  };
}

/** Prefix of the Stop button's custom id; the thread key follows it. */
export const STOP_BUTTON_PREFIX = 'threadlab_stop:';

/** Discord's limit on a component's custom id. */
const CUSTOM_ID_MAX_CHARS = 100;

/** The Stop button's custom id for a thread key (Discord thread keys are at most ~90 characters). */
export function stopButtonId(threadKey: string): string {
  const id = `${STOP_BUTTON_PREFIX}${threadKey}`;
  if (id.length > CUSTOM_ID_MAX_CHARS) throw new Error(`thread key too long for a button id: ${threadKey}`);
  return id;
}

/** The thread key of a Stop button's custom id, or undefined for any other component. */
export function parseStopButtonId(customId: string): string | undefined {
  return customId.startsWith(STOP_BUTTON_PREFIX) ? customId.slice(STOP_BUTTON_PREFIX.length) || undefined : undefined;
}
