import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { RedisBudgetCounters } from '../../../adapters/redis/redis-budget-counters.js';
import { createLogger } from '../../../src/logger.js';
import { loadConfig } from '../../../src/config/index.js';
import { DailyBudgets } from '../../../src/governance/budget/budget.js';
import { anchorAt, budgetContract, CONTRACT_DAYS } from '../../contract/budget-contract.js';
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

describe('Redis budget keys expire on Redis own clock (the key count stays bounded)', () => {
  it.each(CONTRACT_DAYS.map((offset) => ({ offset })))(
    'a key written with the clock $offset days from today lives for the rest of that day and an hour',
    async ({ offset }) => {
      const keyPrefix = `test-${randomUUID()}`;
      const counters = new RedisBudgetCounters({ redisUrl: redis.url, logger, keyPrefix });
      const client = new Redis(redis.url);
      try {
        const nowMs = anchorAt(offset); // 21:00 UTC: 3 h to the reset, 4 h kept
        const budgets = new DailyBudgets({
          counters,
          limits: loadConfig({ THREADLAB_BUDGET_USER_DAILY_TOKENS: '1000' }).budgets,
          logger,
          now: () => nowMs,
        });
        await budgets.forTurn({ platform: 'slack', workspace: 'T1', user: 'U1' }).charge({ tokens: 900 });
        const day = new Date(nowMs).toISOString().slice(0, 10);
        const keys = await client.keys(`${keyPrefix}:${day}:*`);
        expect(keys.sort()).toEqual([`${keyPrefix}:${day}:u:slack:T1:U1`, `${keyPrefix}:${day}:w:slack:T1`]);
        for (const key of keys) {
          const ttl = await client.pttl(key);
          expect(ttl).toBeGreaterThan(4 * 3_600_000 - 60_000);
          expect(ttl).toBeLessThanOrEqual(4 * 3_600_000);
        }
        // The 80 % flag was claimed once on that day's hash, which still holds the spend.
        expect(await client.hgetall(`${keyPrefix}:${day}:u:slack:T1:U1`)).toMatchObject({ tokens: '900' });
      } finally {
        client.disconnect();
        await counters.close();
        await deleteKeys(redis.url, keyPrefix);
      }
    },
  );

  it('a keep time below a minute is raised to one: a key never expires as it is written', async () => {
    const keyPrefix = `test-${randomUUID()}`;
    const counters = new RedisBudgetCounters({ redisUrl: redis.url, logger, keyPrefix });
    const client = new Redis(redis.url);
    try {
      await counters.add({ day: 'd', keys: ['u:x'], spend: { tokens: 5, runMs: 7 }, keepMs: -5_000 });
      expect(await counters.read('d', ['u:x'])).toEqual([{ tokens: 5, runMs: 7 }]);
      const ttl = await client.pttl(`${keyPrefix}:d:u:x`);
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      client.disconnect();
      await counters.close();
      await deleteKeys(redis.url, keyPrefix);
    }
  });
});
