import type { PlatformProfile } from '../../src/ports/platform-profile.js';
import { CHAT_REPLY_BOUNDS } from '../../src/replies/reply-bounds.js';

/** Discord message content, in UTF-16 code units. */
export const DISCORD_MESSAGE_CHARS = 2_000;

/** A person as Discord shows them: `<@id>` for a user's snowflake, which renders as their name to each reader. */
export function discordMention(user: { id: string; name?: string }): string {
  return /^\d{15,22}$/.test(user.id) ? `<@${user.id}>` : (user.name ?? 'someone');
}

/**
 * Discord as the core sees it. Its commands are native slash commands; `export` is also taken typed in a
 * thread, because the /export slash command cannot be used in every client.
 */
export const discordProfile: PlatformProfile = {
  commandNames: { run: '/run', reset: '/reset', files: '/files', help: '/help', export: '/export', usage: '/usage' },
  commandTyping: { also: { export: 'export' }, schedule: ['schedule', '/schedule'] },
  scheduleCommand: '/schedule',
  // Discord shows 10 attachments a message.
  replyBounds: CHAT_REPLY_BOUNDS,
  maxMessageChars: DISCORD_MESSAGE_CHARS,
  mention: discordMention,
};
