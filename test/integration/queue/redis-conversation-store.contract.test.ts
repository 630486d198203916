import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { RedisConversationStore } from '../../../adapters/redis/redis-conversation-store.js';
import { createLogger } from '../../../src/logger.js';
import { conversationStoreContract } from '../../contract/conversation-store-contract.js';
import { deleteKeys, testRedis } from './redis-server.js';

const logger = createLogger({ level: 'silent' });
let redis: Awaited<ReturnType<typeof testRedis>>;
beforeAll(async () => {
  redis = await testRedis();
});
afterAll(async () => redis?.stop());

conversationStoreContract('RedisConversationStore', async () => {
  const keyPrefix = `test-${randomUUID()}`;
  const store = new RedisConversationStore({ redisUrl: redis.url, logger, keyPrefix });
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
