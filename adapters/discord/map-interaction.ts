import { LANGUAGES, type Language } from '../../src/domain/execution.js';
import type { InboundCommand, InboundMessage } from '../../src/domain/messages.js';
import type { ThreadRef } from '../../src/domain/thread-key.js';
import { sqlRunOf } from '../../src/domain/sql-run.js';
import { unfenceCode } from './code-option.js';
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
  /**
   * Where it was used (discord-api-types `InteractionContextType`): 0 a server, 1 the bot's DM, 2 another DM or a
   * group DM. Absent when Discord did not say.
   */
  context?: number;
  /**
   * `authorizing_integration_owners`: `guild` is key "0" (a guild install: the guild's id, "0" in the bot's DM),
   * `user` key "1" (a user install: that user's id). A key is present only for the installs that authorised it.
   */
  owners?: { guild?: string; user?: string };
}

/** The ask command's name: a question for the model, with files when asked through its modal. */
export const ASK_COMMAND = 'ask';

/**
 * Whether the bot user is in the place the command was used. Not in a DM or group DM between people (context 2),
 * nor in a server where only a user install authorised the command (no "0" key): Discord's docs, "Authorizing
 * Integration Owners Object". Everything is then answered through the interaction's webhook, never the bot token.
 */
export function botIsPresent(view: Pick<CommandView, 'context' | 'owners' | 'guildId'>): boolean {
  if (view.context === 2) return false;
  const owners = view.owners ?? {};
  if (view.guildId !== null && owners.guild === undefined && owners.user !== undefined) return false;
  return true;
}

/** Which modal a command opens instead of running: `/run` without code, `/ask` without a question. */
export function modalWanted(view: Pick<CommandView, 'commandName' | 'options'>): 'run' | 'ask' | undefined {
  if (view.commandName === 'run' && !(view.options.code ?? '').trim()) return 'run';
  if (view.commandName === ASK_COMMAND && !(view.options.question ?? '').trim()) return 'ask';
  return undefined;
}

/** The command of a slash interaction, or undefined for a command Threadlab does not know. */
export function commandFromView(view: CommandView): InboundCommand | undefined {
  switch (view.commandName) {
    case 'run':
      return runCommand(view.options.code ?? '', view.options.language);
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

/** The languages `/run` offers: the sandbox's, and sql (a query on a data source, docs/data-sources.md). */
export const RUN_LANGUAGES: readonly RunLanguage[] = [...LANGUAGES, 'sql'];
export type RunLanguage = Language | 'sql';

/**
 * The run command of code a user typed: its fence stripped (unfenceCode). The language option, a choice Discord
 * offered (commands.ts), wins; else the fence's tag; else python. Anything else in a payload is python. Code that is
 * an SQL query (sqlRunOf) is a `query` command instead.
 */
export function runCommand(code: string, languageOption?: string): InboundCommand & { name: 'run' | 'query' } {
  const unfenced = unfenceCode(code);
  // An sql block (or a first line `-- source: NAME`, or the language sql) is a query on a data source, as a message
  // that is one sql block.
  const query = sqlRunOf(code) ?? sqlRunOf(unfenced.code, languageOption);
  if (query) return { name: 'query', ...query };
  const chosen = LANGUAGES.find((l) => l === languageOption);
  return { name: 'run', language: chosen ?? unfenced.language ?? 'python', code: unfenced.code };
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
  if (view.commandName === ASK_COMMAND) return commandMessage(view, { text: (view.options.question ?? '').trim() });
  const command = commandFromView(view);
  if (!command) return undefined;
  const text =
    command.name === 'run'
      ? command.code
      : command.name === 'query'
        ? command.body
        : command.name === 'schedule'
          ? `/schedule ${command.text}`
          : `/${command.name}`;
  return commandMessage(view, { text, command });
}

/** The InboundMessage of an interaction (a command, or a modal's submission) with its text, command and files. */
export function commandMessage(
  view: CommandView,
  what: { text: string; command?: InboundCommand; attachments?: InboundMessage['attachments'] },
): InboundMessage {
  return {
    id: `discord:interaction:${view.id}`,
    thread: commandThreadRef(view),
    user: {
      id: view.user.id,
      name: view.user.name,
      isBot: view.user.bot,
      ...(view.roles ? { roles: view.roles } : {}),
    },
    text: what.text,
    attachments: what.attachments ?? [],
    ...(what.command ? { command: what.command } : {}),
    receivedAtMs: view.createdAtMs,
    replyContext: interactionReplyContext(view),
  };
}

/** Where an interaction is answered: its token (webhook edits within 15 minutes) and the channel it was used in. */
export function interactionReplyContext(
  view: Pick<
    CommandView,
    | 'id'
    | 'channel'
    | 'applicationId'
    | 'token'
    | 'createdAtMs'
    | 'attachmentSizeLimit'
    | 'context'
    | 'owners'
    | 'guildId'
  >,
): InboundMessage['replyContext'] {
  return {
    kind: 'interaction',
    channelId: view.channel.id,
    applicationId: view.applicationId,
    interactionId: view.id,
    interactionToken: view.token,
    interactionAtMs: view.createdAtMs,
    attachmentSizeLimit: view.attachmentSizeLimit ?? null,
    // Where the bot is not a member, only the interaction's webhook reaches the place (target.ts).
    ...(botIsPresent(view) ? {} : { webhookOnly: true }),
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
