import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { BullMqScheduler } from '../../../adapters/redis/bullmq-scheduler.js';
import { createLogger } from '../../../src/logger.js';
import { schedulerContract } from '../../contract/scheduler-contract.js';
import { deleteKeys, testRedis } from './redis-server.js';

const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
let redis: Awaited<ReturnType<typeof testRedis>>;
beforeAll(async () => {
  redis = await testRedis();
});
afterAll(async () => redis?.stop());

schedulerContract('BullMqScheduler', async () => {
  const keyPrefix = `test-${randomUUID()}`;
  const scheduler = new BullMqScheduler({ redisUrl: redis.url, logger, keyPrefix });
  return {
    scheduler,
    async dispose() {
      await scheduler.close();
      await deleteKeys(redis.url, keyPrefix);
    },
  };
});
