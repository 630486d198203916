import { Redis } from 'ioredis';
import type { Logger } from '../../src/logger.js';

/** Every long-lived connection's backoff between reconnects, in ms: 200 ms more per try, at most 2 s. */
const reconnectDelayMs = (times: number): number => Math.min(200 * times, 2000);

/**
 * The one place connections to REDIS_URL are made. A connection that retries forever with a capped
 * backoff, so a Redis restart is ridden out: commands wait (offline queue) instead of failing after 20 retries.
 */
export function createRedis(url: string, options: { logger: Logger; purpose: string }): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: null,
    retryStrategy: reconnectDelayMs,
    connectionName: `threadlab-${options.purpose}`,
  });
  let down = false;
  redis.on('error', (err: Error) => {
    if (!down) options.logger.warn({ err, purpose: options.purpose }, 'redis connection error; retrying');
    down = true;
  });
  redis.on('ready', () => {
    if (down) options.logger.info({ purpose: options.purpose }, 'redis connection restored');
    down = false;
  });
  return redis;
}

/** Connection options for BullMQ's own clients (it needs maxRetriesPerRequest null for workers). */
export function bullConnection(url: string): {
  url: string;
  maxRetriesPerRequest: null;
  retryStrategy: (times: number) => number;
} {
  return { url, maxRetriesPerRequest: null, retryStrategy: reconnectDelayMs };
}

/**
 * PINGs Redis once (doctor, /healthz), giving up after `timeoutMs`: unlike the bot's connections, a probe
 * does not ride out an outage, it reports it. @defaultValue timeoutMs 3000
 */
export async function pingRedis(url: string, options: { timeoutMs?: number } = {}): Promise<void> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: options.timeoutMs ?? 3000,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    const answer = await client.ping();
    if (answer !== 'PONG') throw new Error(`unexpected answer ${answer}`);
  } finally {
    client.disconnect();
  }
}

/** Quits politely, or disconnects when Redis is not answering. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  try {
    await Promise.race([
      redis.quit(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('quit timeout')), 1000)),
    ]);
  } catch {
    redis.disconnect();
  }
}

/** Logs a recurring error once per `intervalMs` (BullMQ repeats connection errors many times a second). */
export function throttledWarn(logger: Logger, msg: string, intervalMs = 10_000): (err: unknown) => void {
  let lastMs = 0;
  let suppressed = 0;
  return (err) => {
    const now = Date.now();
    if (now - lastMs < intervalMs) {
      suppressed += 1;
      return;
    }
    logger.warn({ err, suppressed }, msg);
    lastMs = now;
    suppressed = 0;
  };
}

/** Deletes every key under `${prefix}:` (bench and test runs use a unique prefix each). */
export async function deleteKeysUnder(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  return deleted;
}
