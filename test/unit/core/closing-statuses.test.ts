import { describe, expect, it } from 'vitest';
import { ClosingStatuses } from '../../../src/core/closing-statuses.js';

describe('ClosingStatuses', () => {
  it("a thread's next job waits for its last status to go; other threads do not", async () => {
    const closing = new ClosingStatuses();
    let release = () => {};
    closing.add('t1', new Promise<void>((resolve) => (release = resolve)));
    let waited = false;
    const next = closing.of('t1').then(() => (waited = true));
    await closing.of('t2');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(waited).toBe(false);
    release();
    await next;
    expect(waited).toBe(true);
  });

  it('shutdown waits for every status, and no longer than its bound for one that never goes', async () => {
    const closing = new ClosingStatuses();
    closing.add('quick', new Promise<void>((resolve) => setTimeout(resolve, 10)));
    const startedMs = Date.now();
    await closing.settle(5_000);
    expect(Date.now() - startedMs).toBeLessThan(5_000);
    closing.add('stuck', new Promise<void>(() => {}));
    const stuckFromMs = Date.now();
    await closing.settle(100);
    expect(Date.now() - stuckFromMs).toBeGreaterThanOrEqual(99);
  });
});
