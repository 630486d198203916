import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { RedisSessionStore } from '../../../adapters/redis/redis-session-store.js';
import { createLogger } from '../../../src/logger.js';
import { sessionStoreContract } from '../../contract/session-store-contract.js';
import { deleteKeys, testRedis } from './redis-server.js';

const logger = createLogger({ level: 'silent' });
let redis: Awaited<ReturnType<typeof testRedis>>;
beforeAll(async () => {
  redis = await testRedis();
});
afterAll(async () => redis?.stop());

sessionStoreContract('RedisSessionStore', async () => {
  const keyPrefix = `test-${randomUUID()}`;
  const store = new RedisSessionStore({ redisUrl: redis.url, logger, keyPrefix });
  return {
    store,
    async dispose() {
      await store.close();
      await deleteKeys(redis.url, keyPrefix);
      await deleteKeys(redis.url, `${keyPrefix}-export`);
      await deleteKeys(redis.url, `${keyPrefix}-export-meta`);
    },
  };
});
