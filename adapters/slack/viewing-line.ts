import type { WebClient } from '@slack/web-api';
import type { InboundMessage } from '../../src/domain/messages.js';
import type { Logger } from '../../src/logger.js';
import type { InboundHandler } from '../../src/ports/platform-adapter.js';
import type { ViewedChannels } from './app-context.js';

export interface ViewingDeps {
  client: WebClient;
  handler: InboundHandler;
  viewed: ViewedChannels;
  logger: Logger;
}

/** Slack's longest channel name is 80 characters; anything else is not a name to repeat. */
const CHANNEL_NAME = /^[\p{L}\p{N}_.-]{1,80}$/u;

/**
 * A DM message with the one line of what its sender is looking at in Slack (their last `app_context_changed`),
 * when that may be said: the bot is a member of the channel (`conversations.info` `is_member`) and our access
 * lists let the user use the bot there. Only the channel's name is read, never its messages. Anything else (no
 * context, a channel the bot is not in, a refusal, Slack failing) leaves the message as it is. Never throws.
 */
export async function withViewing(deps: ViewingDeps, message: InboundMessage): Promise<InboundMessage> {
  if (message.replyContext?.channelType !== 'im') return message;
  const channel = deps.viewed.recall(message.thread.workspace, message.user.id);
  if (!channel || channel === message.thread.channel) return message;
  try {
    const there: InboundMessage = {
      ...message,
      id: `viewing:${message.id}`,
      thread: { ...message.thread, channel, thread: message.thread.thread },
    };
    const admission = (await deps.handler.admit?.(there)) ?? { allowed: true };
    if (!admission.allowed) return message;
    const info = await deps.client.conversations.info({ channel });
    const name = info.channel?.name;
    if (info.channel?.is_member !== true || typeof name !== 'string' || !CHANNEL_NAME.test(name)) return message;
    return { ...message, viewing: `The user is looking at #${name} in Slack.` };
  } catch (err) {
    deps.logger.debug({ err, channel }, 'slack: what the user is looking at is not told to the model');
    return message;
  }
}
