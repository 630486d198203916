import type { CommandTyping } from '../../src/domain/typed-command.js';
import type { PlatformProfile } from '../../src/ports/platform-profile.js';
import { CHAT_REPLY_BOUNDS } from '../../src/replies/reply-bounds.js';

/** Slack's text limits, in UTF-16 code units (JS string length, never less than what Slack counts). */
export const SLACK_TEXT_LIMITS = {
  /** `chat.postMessage` text. */
  textChars: 40_000,
  /** Block Kit section (and markdown block) text. */
  sectionChars: 3_000,
} as const;

/** The slash command's name when THREADLAB_SLACK_COMMAND is unset. */
export const DEFAULT_SLACK_COMMAND = '/interpreter';

/** User group ids (S…): their membership is read through the API (`usergroups.users.list`). */
export const isSlackUserGroupId = (id: string): boolean => /^S[A-Z0-9]{2,}$/.test(id);

/**
 * A person as Slack shows them: `<@U…>` renders as their name to each reader. An id that is not one of Slack's
 * (user ids are upper-case letters and digits) is never put inside `<@…>`.
 */
export function slackMention(user: { id: string; name?: string }): string {
  return /^[UW][A-Z0-9]{2,20}$/.test(user.id) ? `<@${user.id}>` : (user.name ?? 'someone');
}

/** A slash command cannot name its thread, so in a thread the bare word (`reset`, `stop`) is the command. */
export const SLACK_COMMAND_TYPING: CommandTyping = { prefix: '', schedule: ['schedule'] };

/**
 * Slack as the core sees it. `command` is the configured slash command (THREADLAB_SLACK_COMMAND): every text
 * that names a command says it. Reset, files and export are named as typed in the thread.
 */
export function slackProfile(command: string = DEFAULT_SLACK_COMMAND): PlatformProfile {
  return {
    commandNames: {
      run: `${command} run`,
      reset: 'reset',
      files: 'files',
      help: `${command} help`,
      export: 'export',
      usage: `${command} usage`,
    },
    commandTyping: SLACK_COMMAND_TYPING,
    scheduleCommand: 'schedule',
    // Slack shows 10 files a message.
    replyBounds: CHAT_REPLY_BOUNDS,
    maxMessageChars: SLACK_TEXT_LIMITS.textChars,
    mention: slackMention,
  };
}
