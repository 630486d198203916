import type { Redis } from 'ioredis';
import type { Logger } from '../../src/logger.js';
import type { BudgetCounters, BudgetSpend } from '../../src/ports/budget.js';
import { closeRedis, createRedis } from './connection.js';

export interface RedisBudgetCountersOptions {
  logger: Logger;
  /** Either a URL (the counters own and close their connection) or a connection shared with others. */
  redisUrl?: string;
  redis?: Redis;
  /** Prefix of the keys. @defaultValue 'threadlab:budget' */
  keyPrefix?: string;
}

/** At least a minute: a key must outlive the write that made it, whatever the caller computed. */
const keepMs = (ms: number): number => Math.max(60_000, Math.ceil(ms));

/**
 * Daily budget counters in Redis, shared by every worker: one hash per day and key (`tokens`, `runMs`,
 * and the once-flags), kept until an hour past the end of its day (a relative expiry, on Redis's clock), so the key count is bounded by a day's users.
 */
export class RedisBudgetCounters implements BudgetCounters {
  private readonly redis: Redis;
  private readonly ownsConnection: boolean;
  private readonly prefix: string;

  constructor(options: RedisBudgetCountersOptions) {
    if (options.redis) {
      this.redis = options.redis;
      this.ownsConnection = false;
    } else if (options.redisUrl) {
      this.redis = createRedis(options.redisUrl, { logger: options.logger, purpose: 'budgets' });
      this.ownsConnection = true;
    } else {
      throw new Error('RedisBudgetCounters needs redisUrl or redis');
    }
    this.prefix = options.keyPrefix ?? 'threadlab:budget';
  }

  async add(o: { day: string; keys: string[]; spend: BudgetSpend; keepMs: number }): Promise<BudgetSpend[]> {
    const tx = this.redis.multi();
    for (const key of o.keys) {
      const k = this.key(o.day, key);
      tx.hincrby(k, 'tokens', Math.round(o.spend.tokens));
      tx.hincrby(k, 'runMs', Math.round(o.spend.runMs));
      tx.pexpire(k, keepMs(o.keepMs));
    }
    const replies = (await tx.exec()) ?? [];
    return o.keys.map((_, i) => ({
      tokens: Number(replies[i * 3]?.[1] ?? 0),
      runMs: Number(replies[i * 3 + 1]?.[1] ?? 0),
    }));
  }

  async read(day: string, keys: string[]): Promise<BudgetSpend[]> {
    const tx = this.redis.multi();
    for (const key of keys) tx.hmget(this.key(day, key), 'tokens', 'runMs');
    const replies = (await tx.exec()) ?? [];
    return keys.map((_, i) => {
      const [tokens, runMs] = (replies[i]?.[1] as (string | null)[] | undefined) ?? [];
      return { tokens: Number(tokens ?? 0), runMs: Number(runMs ?? 0) };
    });
  }

  async claimOnce(o: { day: string; key: string; flag: string; keepMs: number }): Promise<boolean> {
    const k = this.key(o.day, o.key);
    const [[, set] = []] = ((await this.redis
      .multi()
      .hsetnx(k, `once:${o.flag}`, '1')
      .pexpire(k, keepMs(o.keepMs))
      .exec()) ?? []) as [unknown, unknown][];
    return Number(set) === 1;
  }

  async close(): Promise<void> {
    if (this.ownsConnection) await closeRedis(this.redis);
  }

  private key(day: string, key: string): string {
    return `${this.prefix}:${day}:${key}`;
  }
}
