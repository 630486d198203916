import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BullMqScheduler } from '../../../adapters/redis/bullmq-scheduler.js';
import type { Schedule } from '../../../src/domain/schedule.js';
import { ScheduleRetention } from '../../../src/governance/retention/retention-schedules.js';
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

describe('BullMqScheduler across processes', () => {
  const make = (keyPrefix: string) => new BullMqScheduler({ redisUrl: redis.url, logger, keyPrefix });
  const schedule = (id: string, everyMs: number): Schedule => ({
    id,
    threadKey: `web:local:web:${id}`,
    thread: { platform: 'web', workspace: 'local', channel: 'web', thread: id },
    creator: { id: 'u1' },
    when: { kind: 'every', everyMs },
    task: { kind: 'rerun' },
    createdAtMs: Date.now(),
  });

  it('tells only one of two processes removing the same schedule that it removed it (the stop is said once)', async () => {
    const keyPrefix = `test-${randomUUID()}`;
    const [a, b] = [make(keyPrefix), make(keyPrefix)];
    try {
      await a.add(schedule('s1', 3_600_000));
      expect(await b.get('s1')).toMatchObject({ id: 's1' });
      const results = await Promise.all([a.remove('s1'), b.remove('s1')]);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await a.list(10)).toEqual([]);
    } finally {
      await Promise.all([a.close(), b.close()]);
      await deleteKeys(redis.url, keyPrefix);
    }
  });

  it('a purge from another process removes the schedule, which then fires no more', async () => {
    const keyPrefix = `test-${randomUUID()}`;
    const [bot, purge] = [make(keyPrefix), make(keyPrefix)];
    try {
      const fired: number[] = [];
      await bot.start(async (f) => void fired.push(f.dueAtMs));
      await bot.add(schedule('s2', 1000));
      await waitFor(() => fired.length >= 1, 5000);
      const retention = new ScheduleRetention({ scheduler: purge, idleKeys: async () => [] });
      expect(await retention.purgeThread('web:local:web:s2')).toEqual([
        { what: 'schedules', thread: 'web:local:web:s2', note: '1 schedule(s)' },
      ]);
      const count = fired.length;
      await new Promise((r) => setTimeout(r, 2500));
      expect(fired.length).toBeLessThanOrEqual(count + 1); // one may have been taken already
    } finally {
      await Promise.all([bot.close(), purge.close()]);
      await deleteKeys(redis.url, keyPrefix);
    }
  });
});

async function waitFor(check: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}
