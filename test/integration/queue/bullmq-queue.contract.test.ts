import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { BullMqJobQueue } from '../../../adapters/redis/bullmq-queue.js';
import { createLogger } from '../../../src/logger.js';
import { jobQueueContract, type JobQueueFactory } from '../../contract/job-queue-contract.js';
import { jobQueueParkingContract } from '../../contract/job-queue-parking-contract.js';
import { deleteKeys, testRedis } from './redis-server.js';

const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
let redis: Awaited<ReturnType<typeof testRedis>>;
beforeAll(async () => {
  redis = await testRedis();
});
afterAll(async () => redis?.stop());

const factory: JobQueueFactory = async (options) => {
  const keyPrefix = `test-${randomUUID()}`;
  const queue = new BullMqJobQueue({
    redisUrl: redis.url,
    logger,
    keyPrefix,
    lockDurationMs: 5000,
    stalledIntervalMs: 2000,
    ...options,
  });
  return {
    queue,
    async dispose() {
      await queue.close(1000);
      await deleteKeys(redis.url, keyPrefix);
    },
  };
};

jobQueueContract('BullMqJobQueue', factory);
jobQueueParkingContract('BullMqJobQueue', factory);
