import type { Redis } from 'ioredis';
import type { Logger } from '../../src/logger.js';
import type { SessionRecord, SessionStore } from '../../src/ports/session-store.js';
import { closeRedis, createRedis } from './connection.js';

export interface RedisSessionStoreOptions {
  logger: Logger;
  /** Either a URL (the store owns and closes its connection) or a connection shared with others. */
  redisUrl?: string;
  redis?: Redis;
  /** Prefix of the keys. @defaultValue 'threadlab:session' */
  keyPrefix?: string;
}

/**
 * Conversation memory in Redis, one JSON string per thread with a PX TTL reset on every write, so
 * every gateway and worker sees the same history.
 */
export class RedisSessionStore implements SessionStore {
  private readonly redis: Redis;
  private readonly ownsConnection: boolean;
  private readonly prefix: string;

  constructor(options: RedisSessionStoreOptions) {
    if (options.redis) {
      this.redis = options.redis;
      this.ownsConnection = false;
    } else if (options.redisUrl) {
      this.redis = createRedis(options.redisUrl, { logger: options.logger, purpose: 'sessions' });
      this.ownsConnection = true;
    } else {
      throw new Error('RedisSessionStore needs redisUrl or redis');
    }
    this.prefix = options.keyPrefix ?? 'threadlab:session';
  }

  async get(key: string): Promise<SessionRecord | undefined> {
    const raw = await this.redis.get(this.k(key));
    return raw === null ? undefined : (JSON.parse(raw) as SessionRecord);
  }

  async put(key: string, record: SessionRecord, ttlMs: number): Promise<void> {
    await this.redis.set(this.k(key), JSON.stringify(record), 'PX', Math.max(1, Math.round(ttlMs)));
  }

  async delete(key: string): Promise<void> {
    await this.redis.del(this.k(key));
  }

  async close(): Promise<void> {
    if (this.ownsConnection) await closeRedis(this.redis);
  }

  private k(key: string): string {
    return `${this.prefix}:${key}`;
  }
}
