import type { AnyThreadChannel, Message } from 'discord.js';
import type { InboundMessage } from '../../src/domain/messages.js';
import { routeMessage, toInboundMessage } from './map-message.js';
import { restFailure } from './target.js';
import { viewFromMessage } from './views.js';

/** Discord's code for "a thread has already been created for this message" (a redelivered event). */
const THREAD_ALREADY_CREATED = 160004;

/**
 * Turns gateway messages into InboundMessages, starting a thread for a mention in a text channel and
 * remembering the threads the bot follows (created, joined, or mentioned in), so they continue without
 * a mention.
 */
export class ThreadFollower {
  private readonly followed = new Set<string>();

  /** How many followed threads are remembered beyond the ones Discord reports as joined. @defaultValue 10000 */
  constructor(private readonly maxRemembered = 10_000) {}

  /**
   * The message for the core, or undefined when it is not for the bot. `admit` (the core's access check)
   * is asked before a thread is started for a mention in a text channel, with the channel as the place: a
   * refused user must not make the bot create a thread.
   */
  async route(
    message: Message,
    admit?: (provisional: InboundMessage) => Promise<boolean>,
  ): Promise<InboundMessage | undefined> {
    const botId = message.client.user.id;
    const channel = message.channel;
    const view = viewFromMessage(message);
    const follows =
      channel.isThread() && (this.followed.has(channel.id) || channel.ownerId === botId || channel.joined);
    const route = routeMessage(view, { botUserId: botId, followsThread: follows });
    if (route.action === 'ignore') return undefined;
    if (route.action === 'start_thread') {
      const place = { platform: 'discord' as const, workspace: view.guildId ?? 'dm', channel: view.channel.id };
      if (admit && !(await admit(toInboundMessage(view, { ...place, thread: view.channel.id }, botId))))
        return undefined;
      const thread = await this.startThread(message, route.name);
      this.follow(thread.id);
      return toInboundMessage(
        view,
        { platform: 'discord', workspace: view.guildId ?? 'dm', channel: view.channel.id, thread: thread.id },
        botId,
      );
    }
    if (channel.isThread() && !follows) {
      this.follow(channel.id);
      if (!channel.joined && channel.joinable) await channel.join().catch(() => undefined);
    }
    return toInboundMessage(view, route.ref, botId);
  }

  /** Remembers a thread the bot follows (one it started), so its messages need no mention. */
  follow(threadId: string): void {
    this.followed.add(threadId);
    if (this.followed.size > this.maxRemembered) {
      const oldest = this.followed.values().next().value;
      if (oldest !== undefined) this.followed.delete(oldest);
    }
  }

  private async startThread(message: Message, name: string): Promise<AnyThreadChannel> {
    try {
      return await message.startThread({ name, reason: 'Threadlab session' });
    } catch (err) {
      if (restFailure(err).code !== THREAD_ALREADY_CREATED) throw err;
      const fetched = await message.fetch(true);
      if (fetched.thread) return fetched.thread;
      throw err;
    }
  }
}
