import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchQueue } from '../../../cli/bench/queue-bench.js';
import { createLogger } from '../../../src/logger.js';
import { testRedis } from './redis-server.js';

let server: Awaited<ReturnType<typeof testRedis>>;
beforeAll(async () => {
  server = await testRedis();
});
afterAll(async () => server?.stop());

describe('benchQueue', () => {
  it('prints in-process and BullMQ rows with one and two workers', async () => {
    const lines: string[] = [];
    const rows = await benchQueue({
      redisUrl: server.url,
      threads: 16,
      messages: 160,
      workMs: 20,
      out: (l) => lines.push(l),
      logger: createLogger({ level: 'silent' }),
    });
    process.stderr.write(`${lines.join('\n')}\n`);
    expect(rows.map((r) => `${r.implementation}×${r.workers}`)).toEqual([
      'in-process×1',
      'in-process×2',
      'bullmq×1',
      'bullmq×2',
    ]);
    for (const r of rows) {
      expect(r.messages).toBe(160);
      expect(r.messagesPerSecond).toBeGreaterThan(0);
      expect(r.p95WaitMs).toBeGreaterThanOrEqual(r.p50WaitMs);
    }
    // With 16 threads and 4 slots per worker, a second worker must help.
    expect(rows[3]!.messagesPerSecond).toBeGreaterThan(rows[2]!.messagesPerSecond * 1.3);
    expect(lines.join('\n')).toMatch(/20 ms async sleep/);
  }, 120_000);
});
