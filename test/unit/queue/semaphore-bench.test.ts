import { describe, expect, it } from 'vitest';
import { benchQueue } from '../../../cli/bench/queue-bench.js';
import { createLogger } from '../../../src/logger.js';
import { Semaphore } from '../../../src/queue/semaphore.js';

describe('Semaphore', () => {
  it('lets `n` holders in and wakes waiters in order', async () => {
    const slots = new Semaphore(2);
    const order: string[] = [];
    await slots.acquire();
    await slots.acquire();
    const third = slots.acquire().then(() => order.push('third'));
    const fourth = slots.acquire().then(() => order.push('fourth'));
    await Promise.resolve();
    expect(order).toEqual([]);
    slots.release();
    await third;
    slots.release();
    await fourth;
    expect(order).toEqual(['third', 'fourth']);
  });
});

describe('benchQueue without Redis', () => {
  it('measures the in-process queue and says the BullMQ rows need REDIS_URL', async () => {
    const lines: string[] = [];
    const rows = await benchQueue({
      threads: 8,
      messages: 40,
      workMs: 5,
      out: (l) => lines.push(l),
      logger: createLogger({ level: 'silent' }),
    });
    expect(rows.map((r) => [r.implementation, r.workers, r.messages])).toEqual([
      ['in-process', 1, 40],
      ['in-process', 2, 40],
    ]);
    expect(lines.filter((l) => l.includes('skipped: set REDIS_URL'))).toHaveLength(2);
    expect(lines.join('\n')).toContain('5 ms async sleep');
  });
});
