import type { InboundUser } from '../domain/messages.js';
import type { Platform } from '../domain/thread-key.js';
import type { PlatformAdapters } from './platform-adapters.js';

/**
 * A person as a text on `platform` names them: its profile's mention (`<@U…>` on Slack and Discord) or the display
 * name it has (the web chat); the name, else the id, where this process has no adapter of that platform.
 */
export function personName(
  adapters: Pick<PlatformAdapters, 'find'>,
  platform: Platform,
  user: Pick<InboundUser, 'id' | 'name'>,
): string {
  return adapters.find(platform)?.profile.mention(user) ?? user.name ?? user.id;
}
