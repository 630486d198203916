import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { WarmPool } from '../../../sandbox/warm-pool.js';
import { fakeContainer, launchInto, type FakeContainer } from './pool-containers.js';

// Growing and shrinking with demand: warm-pool-demand.test.ts; priming: warm-pool-priming.test.ts.
describe('WarmPool', () => {
  const logger = pino({ level: 'silent' });

  it('fills to size, hands each container out once and refills', async () => {
    const made: FakeContainer[] = [];
    const pool = new WarmPool({
      size: 2,
      logger,
      launch: launchInto(made),
    });
    await pool.whenFull();
    expect(pool.available).toBe(2);
    const a = pool.take();
    const b = pool.take();
    expect(a).toBeDefined();
    expect(a).not.toBe(b);
    await pool.whenFull();
    const taken = new Set([a, b]);
    expect(pool.take()).not.toBeUndefined();
    expect([...taken].every((c) => c !== pool.take())).toBe(true);
    expect(made.length).toBeGreaterThanOrEqual(4);
    await pool.close();
  });

  it('returns undefined when empty and replaces containers that die while pooled', async () => {
    const made: FakeContainer[] = [];
    const pool = new WarmPool({
      size: 1,
      logger,
      launch: launchInto(made),
    });
    expect(pool.take()).toBeUndefined();
    await pool.whenFull();
    made[made.length - 1]!.die();
    await new Promise((r) => setTimeout(r, 10));
    await pool.whenFull();
    const live = pool.take();
    expect(live?.isAlive).toBe(true);
    await pool.close();
  });

  it('retries failed starts with backoff and removes everything on close', async () => {
    let attempts = 0;
    const made: FakeContainer[] = [];
    const pool = new WarmPool({
      size: 1,
      logger,
      retryDelayMs: 5,
      launch: async () => {
        attempts += 1;
        if (attempts < 3) throw new Error('engine hiccup');
        const c = fakeContainer(attempts);
        made.push(c);
        return c.live;
      },
    });
    await pool.whenFull();
    expect(attempts).toBe(3);
    await pool.close();
    expect(made.every((c) => c.state.removed)).toBe(true);
    expect(pool.take()).toBeUndefined();
  });
});
