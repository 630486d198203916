import type { InboundUser } from '../domain/messages.js';
import type { CommandTyping } from '../domain/typed-command.js';

/** The commands the help and budget texts name. */
export type NamedCommand = 'run' | 'reset' | 'files' | 'help' | 'export' | 'usage';

/**
 * How much one reply may carry. The sandbox decides how many files a run writes, so a reply is bounded and
 * what is beyond a bound is summed up in one line instead of being posted or dropped.
 */
export interface ReplyBounds {
  /** Generated files read back and attached to one reply; the rest are named in one line of the text. */
  maxFiles: number;
  /** Bytes of generated files read back for one reply (they are held in memory until posted). */
  maxFileBytesTotal: number;
  /** "Not attached" notes listed one by one; the rest are counted in one note. */
  maxOmitted: number;
  /** Names listed in the line about files beyond `maxFiles`, at most this many characters. */
  maxListedNamesChars: number;
}

/**
 * What the core needs to know about a platform, filled in by its adapter: the core holds no table keyed by
 * platform name. Plain data.
 */
export interface PlatformProfile {
  /** How a user of this platform writes each command, as the help and budget texts name it (`/usage`). */
  commandNames: Readonly<Record<NamedCommand, string>>;
  /** How a schedule is made in a thread (`/schedule`); unset where scheduled reports cannot be made (the CLI). */
  scheduleCommand?: string;
  /** How thread commands are typed as a message; the adapter reads them into `message.command`. */
  commandTyping: CommandTyping;
  /** How much one reply may carry (files, their bytes, notes). */
  replyBounds: ReplyBounds;
  /** Longest text of one message, in UTF-16 code units; the adapter splits longer text (`splitMessage`). */
  maxMessageChars: number;
  /**
   * How a text names a person (a schedule's creator, who started a run): the platform's mention where it renders
   * one as the person's name (`<@U0123>`), else the display name it has. Pure; never returns an empty string.
   */
  mention(user: Pick<InboundUser, 'id' | 'name'>): string;
}
