import type { InboundCommand, InboundMessage } from './messages.js';
import { startsLikeSchedule } from './schedule.js';

/** The commands about a thread's state, which a user can also type as a whole message on some platforms. */
export const THREAD_COMMANDS = ['reset', 'files', 'help', 'stop', 'export', 'usage'] as const;
export type ThreadCommandName = (typeof THREAD_COMMANDS)[number];

/**
 * How a platform's users type thread commands as a whole message (case and surrounding space do not count).
 * A platform without typed commands (its commands are native, or options) leaves `prefix` unset.
 */
export interface CommandTyping {
  /** What goes before a thread command's word: `''` for the bare word, `'/'` for `/reset`; unset: none typed. */
  prefix?: string;
  /** Further whole messages read as a command, lower case (`export` where other commands are native). */
  also?: Readonly<Record<string, ThreadCommandName>>;
  /**
   * How `schedule` is typed with its arguments: the words that lead it (`/schedule`, `schedule`). A bare word
   * (no `/`) counts only before what a schedule starts with (`every`, `daily`, `weekly`, `hourly`, a day, `list`,
   * `cancel`, `TZ=`: `startsLikeSchedule`), so a question that begins with "schedule" stays a question. Unset: not typed.
   */
  schedule?: readonly string[];
}

/** The text after a typed `schedule` command, or undefined when `text` is not one. Pure. */
export function typedScheduleOf(text: string, typing: CommandTyping): string | undefined {
  const trimmed = text.trim();
  const match = /^(\S+)(?:\s+([\s\S]*))?$/.exec(trimmed);
  if (!match || !typing.schedule?.includes(match[1]!.toLowerCase())) return undefined;
  const rest = match[2] ?? '';
  if (!match[1]!.startsWith('/') && !startsLikeSchedule(rest)) return undefined;
  return rest;
}

/** The thread command `text` is, typed as `typing` says, or undefined. Pure. */
export function typedCommandOf(text: string, typing: CommandTyping): ThreadCommandName | undefined {
  const typed = text.trim().toLowerCase();
  const also = typing.also && Object.hasOwn(typing.also, typed) ? typing.also[typed] : undefined;
  if (also) return also;
  const { prefix } = typing;
  if (prefix === undefined || !typed.startsWith(prefix)) return undefined;
  const word = typed.slice(prefix.length);
  return THREAD_COMMANDS.find((name) => name === word);
}

/**
 * `message` with its typed command read into `message.command` (marked `commandTyped`), as its adapter hands
 * it to the core; a message that already has a native command, or whose text is no command, is returned as is.
 */
export function withTypedCommand(message: InboundMessage, typing: CommandTyping): InboundMessage {
  if (message.command) return message;
  const schedule = typedScheduleOf(message.text, typing);
  if (schedule !== undefined) return { ...message, command: { name: 'schedule', text: schedule }, commandTyped: true };
  const name = typedCommandOf(message.text, typing);
  if (!name) return message;
  const command: InboundCommand = { name };
  return { ...message, command, commandTyped: true };
}
