import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containersOf, makeSandbox, type TestSandbox } from './helpers.js';

let t: TestSandbox;
const counts = { hit: 0, miss: 0 };
beforeAll(async () => {
  // Hits and misses as the metrics count them.
  const observer = { size: () => {}, sessions: () => {}, hit: () => (counts.hit += 1), miss: () => (counts.miss += 1) };
  t = await makeSandbox('pool-demand', { poolSize: 1, poolMax: 3, maxSessions: 8 }, undefined, { observer });
});
afterAll(async () => {
  await t?.close();
});

const pooledCount = async () =>
  (await containersOf(t.instanceId)).filter((c) => c.Labels['dev.threadlab.session'] === 'pool').length;

describe('a warm pool that grows with demand (THREADLAB_SANDBOX_POOL_MAX)', () => {
  it('after a burst beyond its size it holds as many as began, up to the maximum, and serves the next burst', async () => {
    await t.sandbox.pool.whenFull();
    expect(t.sandbox.pool.available).toBe(1);
    const burst = (prefix: string, n: number) =>
      Promise.all(
        Array.from({ length: n }, (_, i) => t.sandbox.run(`${prefix}-${i}`, { language: 'python', code: 'print(1)' })),
      );
    const first = await burst('first', 4);
    expect(first.every((r) => r.status === 'ok')).toBe(true);
    expect(counts).toEqual({ hit: 1, miss: 3 });
    // Four began: the pool grows to its maximum of three, not more.
    await t.sandbox.pool.whenFull();
    expect(t.sandbox.pool.target).toBe(3);
    expect(t.sandbox.pool.available).toBe(3);
    const second = await burst('second', 3);
    expect(second.every((r) => r.status === 'ok')).toBe(true);
    expect(counts).toEqual({ hit: 4, miss: 3 });
    await t.sandbox.pool.whenFull();
    // Containers on the engine labelled as pooled: the three ready, plus the seven taken (labels cannot change).
    expect(await pooledCount()).toBeGreaterThanOrEqual(3);
  });
});
