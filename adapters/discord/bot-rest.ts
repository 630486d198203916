import { AsyncLocalStorage } from 'node:async_hooks';
import { DefaultRestOptions, REST } from 'discord.js';
import { passHold } from '../../src/replies/rate-holds.js';
import { BucketHolds } from './bucket-holds.js';
import { createDiscordRestAgent } from './rest-agent.js';

export interface BotRest {
  /** The one REST client of the bot: answers, approvals, notices and the gateway client's own calls. */
  rest: REST;
  /**
   * The same client (same queues, same buckets) for live status writes: a write that would meet a rate
   * limit is refused at once with `platform_rate_limited` (its `retryAfterMs` says when), never slept
   * through, since @discordjs/rest sleeps a 429's Retry-After without looking at any AbortSignal. The
   * status sink tries again after that, and only while its job runs.
   */
  statusRest: REST;
}

/**
 * One REST client per bot. Every writer shares its per-bucket queues, so a 429 met by any of them holds
 * later writes to that bucket until the reset; {@link BucketHolds} makes that hold also when the 429 was
 * the route's first response.
 */
export function createBotRest(options: { token: string; apiUrl?: string }): BotRest {
  const holds = new BucketHolds();
  const statusWrites = new AsyncLocalStorage<true>();
  const rest = new REST({
    version: '10',
    agent: createDiscordRestAgent(),
    ...(options.apiUrl ? { api: options.apiUrl } : {}),
    rejectOnRateLimit: () => statusWrites.getStore() === true,
    makeRequest: async (url, init) => {
      const method = init.method ?? 'GET';
      // The rule every adapter shares (src/replies/rate-holds.ts): a live status meeting a hold is refused, the rest waits.
      await passHold({
        waitMs: holds.waitMs(method, url),
        liveStatus: statusWrites.getStore() === true,
        platform: 'Discord',
        what: `${method} ${new URL(url).pathname}`,
        ...(init.signal ? { signal: init.signal as AbortSignal } : {}),
      });
      const res = await DefaultRestOptions.makeRequest(url, init);
      holds.learn(method, url, res);
      return res;
    },
  }).setToken(options.token);
  const statusRest = new Proxy(rest, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        statusWrites.run(true, () => (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  });
  return { rest, statusRest };
}
