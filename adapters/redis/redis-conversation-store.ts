import type { Redis } from 'ioredis';
import type { Logger } from '../../src/logger.js';
import type {
  ExportEntry,
  ExportLog,
  ExportLogLimits,
  ConversationRecord,
  ConversationStore,
} from '../../src/ports/conversation-store.js';
import { closeRedis, createRedis } from './connection.js';

export interface RedisConversationStoreOptions {
  logger: Logger;
  /** Either a URL (the store owns and closes its connection) or a connection shared with others. */
  redisUrl?: string;
  redis?: Redis;
  /** Prefix of the keys; the name predates ConversationStore and stays so stored threads survive an upgrade. @defaultValue 'threadlab:session' */
  keyPrefix?: string;
}

/**
 * Appends an export entry and drops the oldest past the entry or byte limit, atomically. KEYS: the list, its
 * meta hash (bytes, dropped). ARGV: entry JSON, maxEntries, maxBytes, ttlMs. `#` is a string's length in bytes.
 */
const APPEND_EXPORT = `
redis.call('RPUSH', KEYS[1], ARGV[1])
local bytes = redis.call('HINCRBY', KEYS[2], 'bytes', #ARGV[1])
local n = redis.call('LLEN', KEYS[1])
local maxEntries, maxBytes = tonumber(ARGV[2]), tonumber(ARGV[3])
while n > 0 and (n > maxEntries or bytes > maxBytes) do
  local gone = redis.call('LPOP', KEYS[1])
  bytes = redis.call('HINCRBY', KEYS[2], 'bytes', -#gone)
  redis.call('HINCRBY', KEYS[2], 'dropped', 1)
  n = n - 1
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return n
`;

/**
 * Conversation memory in Redis, one JSON string per thread with a PX TTL reset on every write, so
 * every gateway and worker sees the same history.
 */
export class RedisConversationStore implements ConversationStore {
  private readonly redis: Redis;
  private readonly ownsConnection: boolean;
  private readonly prefix: string;

  constructor(options: RedisConversationStoreOptions) {
    if (options.redis) {
      this.redis = options.redis;
      this.ownsConnection = false;
    } else if (options.redisUrl) {
      this.redis = createRedis(options.redisUrl, { logger: options.logger, purpose: 'conversations' });
      this.ownsConnection = true;
    } else {
      throw new Error('RedisConversationStore needs redisUrl or redis');
    }
    this.prefix = options.keyPrefix ?? 'threadlab:session';
  }

  async get(key: string): Promise<ConversationRecord | undefined> {
    const raw = await this.redis.get(this.k(key));
    return raw === null ? undefined : (JSON.parse(raw) as ConversationRecord);
  }

  async put(key: string, record: ConversationRecord, ttlMs: number): Promise<void> {
    await this.redis.set(this.k(key), JSON.stringify(record), 'PX', Math.max(1, Math.round(ttlMs)));
  }

  async delete(key: string): Promise<void> {
    await this.redis.del(this.k(key), this.k(key, 'export'), this.k(key, 'export-meta'));
  }

  async appendExport(key: string, entry: ExportEntry, limits: ExportLogLimits): Promise<void> {
    const ttlMs = Math.max(1, Math.round(limits.ttlMs));
    await this.redis.eval(
      APPEND_EXPORT,
      2,
      this.k(key, 'export'),
      this.k(key, 'export-meta'),
      JSON.stringify(entry),
      limits.maxEntries,
      limits.maxBytes,
      ttlMs,
    );
  }

  async readExport(key: string): Promise<ExportLog> {
    const [entries, dropped] = await Promise.all([
      this.redis.lrange(this.k(key, 'export'), 0, -1),
      this.redis.hget(this.k(key, 'export-meta'), 'dropped'),
    ]);
    return { entries: entries.map((e) => JSON.parse(e) as ExportEntry), dropped: Number(dropped ?? 0) };
  }

  async close(): Promise<void> {
    if (this.ownsConnection) await closeRedis(this.redis);
  }

  /** The key of a thread's record, or of one of its export keys (apart: a thread key may itself end in `:export`). */
  private k(key: string, part?: string): string {
    return part ? `${this.prefix}-${part}:${key}` : `${this.prefix}:${key}`;
  }
}
