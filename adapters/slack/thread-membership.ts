import type { WebClient } from '@slack/web-api';
import { threadKey, type ThreadRef } from '../../src/domain/thread-key.js';
import type { Logger } from '../../src/logger.js';
import type { KnownThreads } from './known-threads.js';

export interface ThreadMembershipOptions {
  client: WebClient;
  botUserId: string;
  botId?: string;
  known: KnownThreads;
  logger: Logger;
  /** How long a thread found without the bot is not asked about again. @defaultValue 120000 */
  negativeTtlMs?: number;
}

/**
 * Whether the bot took part in a thread. The in-memory set answers for threads seen since start; for
 * others (after a restart, or on another gateway) Slack's own history is asked once, so follow-ups
 * in a thread the bot answered keep working without a new mention.
 */
export class ThreadMembership {
  private readonly negative = new Map<string, number>();

  constructor(private readonly options: ThreadMembershipOptions) {}

  async isMember(ref: ThreadRef): Promise<boolean> {
    const key = threadKey(ref);
    if (this.options.known.has(key)) return true;
    const until = this.negative.get(key);
    if (until !== undefined && until > Date.now()) return false;
    const { client, botUserId, botId, logger } = this.options;
    let found = false;
    try {
      const res = await client.conversations.replies({ channel: ref.channel, ts: ref.thread, limit: 200 });
      found = (res.messages ?? []).some((m) => m.user === botUserId || (botId !== undefined && m.bot_id === botId));
    } catch (err) {
      logger.warn({ err, channel: ref.channel }, 'could not read the thread to see whether the bot is in it');
    }
    if (found) {
      this.options.known.add(key);
    } else {
      this.negative.set(key, Date.now() + (this.options.negativeTtlMs ?? 120_000));
      if (this.negative.size > 5000) this.negative.delete(this.negative.keys().next().value!);
    }
    return found;
  }
}
