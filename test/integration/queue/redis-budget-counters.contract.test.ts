import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { RedisBudgetCounters } from '../../../adapters/redis/redis-budget-counters.js';
import { createLogger } from '../../../src/logger.js';
import { budgetContract } from '../../contract/budget-contract.js';
import { deleteKeys, testRedis } from './redis-server.js';

const logger = createLogger({ level: 'silent' });
let redis: Awaited<ReturnType<typeof testRedis>>;
beforeAll(async () => {
  redis = await testRedis();
});
afterAll(async () => redis?.stop());

budgetContract('RedisBudgetCounters', async () => {
  const keyPrefix = `test-${randomUUID()}`;
  const counters = new RedisBudgetCounters({ redisUrl: redis.url, logger, keyPrefix });
  return {
    counters,
    async dispose() {
      await counters.close();
      await deleteKeys(redis.url, keyPrefix);
    },
  };
});

it('Redis budget keys expire at the end of their day (the key count stays bounded)', async () => {
  const keyPrefix = `test-${randomUUID()}`;
  const counters = new RedisBudgetCounters({ redisUrl: redis.url, logger, keyPrefix });
  const client = new Redis(redis.url);
  try {
    const expireAtMs = Date.now() + 60_000;
    await counters.add({ day: '2026-11-23', keys: ['u:x'], spend: { tokens: 5, runMs: 7 }, expireAtMs });
    const ttl = await client.pttl(`${keyPrefix}:2026-11-23:u:x`);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  } finally {
    client.disconnect();
    await counters.close();
    await deleteKeys(redis.url, keyPrefix);
  }
});
