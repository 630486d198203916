import { cliProfile } from '../../cli/daemon/profile.js';
import { discordProfile } from '../../adapters/discord/profile.js';
import { slackProfile } from '../../adapters/slack/profile.js';
import { webProfile } from '../../adapters/web/profile.js';
import type { InboundMessage } from '../../src/domain/messages.js';
import type { Platform } from '../../src/domain/thread-key.js';
import { withTypedCommand } from '../../src/domain/typed-command.js';
import type { PlatformProfile } from '../../src/ports/platform-profile.js';

/** The profile the real adapter of `platform` has (Slack's with the default slash command). */
export function profileOf(platform: Platform): PlatformProfile {
  return { slack: slackProfile(), discord: discordProfile, web: webProfile, cli: cliProfile }[platform];
}

/** `message` as its platform's adapter hands it to the core: a typed command read into `message.command`. */
export function asAdapterMaps(message: InboundMessage): InboundMessage {
  return withTypedCommand(message, profileOf(message.thread.platform).commandTyping);
}

/**
 * A message of `platform` as its adapter hands it to the core (typed commands read by the adapter's profile), in
 * thread `t` of channel `c`, from user `u1`; `extra` overrides any field.
 */
export function adapterMessage(platform: Platform, text: string, extra: Partial<InboundMessage> = {}): InboundMessage {
  return asAdapterMaps({
    id: 'm1',
    thread: { platform, workspace: 'local', channel: 'c', thread: 't' },
    user: { id: 'u1' },
    text,
    attachments: [],
    receivedAtMs: 0,
    ...extra,
  });
}
