import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { WarmPool } from '../../../sandbox/warm-pool.js';
import { gatedLauncher } from './pool-containers.js';

describe('WarmPool grows with recent demand and shrinks when it ages out', () => {
  const logger = pino({ level: 'silent' });

  it('holds as many as sessions began in the window, up to the maximum, started two at a time', async () => {
    let nowMs = 0;
    const g = gatedLauncher();
    const pool = new WarmPool({
      size: 2,
      maxSize: 5,
      demandWindowMs: 60_000,
      logger,
      launch: g.launch,
      now: () => nowMs,
    });
    pool.fill();
    await g.finishAll();
    expect(pool.available).toBe(2);
    for (let i = 0; i < 8; i += 1) pool.take();
    expect(pool.target).toBe(5);
    expect(g.inFlight()).toBe(2);
    await g.finishAll();
    expect(pool.available).toBe(5);
    expect(g.mostInFlight()).toBe(2);
    // The demand ages out: the pool goes back to its size, oldest containers first.
    nowMs = 61_000;
    const oldest = g.made[2]!;
    pool.shrink();
    expect(pool.target).toBe(2);
    expect(pool.available).toBe(2);
    expect(oldest.state.removed).toBe(true);
    expect(g.made.filter((c) => c.state.removed)).toHaveLength(3);
    await pool.close();
  });

  it('starts nothing of its own while a session that missed it is starting', async () => {
    const g = gatedLauncher();
    const pool = new WarmPool({ size: 1, maxSize: 4, logger, launch: g.launch });
    expect(pool.take()).toBeUndefined();
    let releaseMiss!: () => void;
    const miss = pool.missStart(() => new Promise<string>((r) => (releaseMiss = () => r('own'))));
    expect(pool.take()).toBeUndefined();
    pool.fill();
    expect(g.inFlight()).toBe(0);
    releaseMiss();
    expect(await miss).toBe('own');
    expect(g.inFlight()).toBe(2);
    await g.finishAll();
    expect(pool.available).toBe(2);
    await pool.close();
  });

  it('a session that took a ready container keeps the pool from starting one until its restore is done', async () => {
    const g = gatedLauncher();
    const pool = new WarmPool({ size: 1, logger, launch: g.launch });
    pool.fill();
    await g.finishAll();
    expect(pool.available).toBe(1);
    let releaseRestore!: () => void;
    const restoring = pool.quietWhile(async () => {
      const live = pool.take();
      await new Promise<void>((r) => (releaseRestore = r));
      return live;
    });
    await new Promise((r) => setTimeout(r, 0));
    expect(pool.available).toBe(0);
    expect(g.inFlight()).toBe(0); // no start competes with the restore
    releaseRestore();
    expect(await restoring).toBeDefined();
    expect(g.inFlight()).toBe(1);
    await g.finishAll();
    expect(pool.available).toBe(1);
    await pool.close();
  });

  it('remembers the demand a previous run learned: refills straight to it, primed, parallelStarts at a time', async () => {
    const nowMs = 100_000;
    const g = gatedLauncher();
    const primed: string[] = [];
    const told: number[] = [];
    const pool = new WarmPool({
      size: 1,
      maxSize: 4,
      demandWindowMs: 60_000,
      parallelStarts: 3,
      logger,
      launch: g.launch,
      now: () => nowMs,
      prime: async (live) => {
        primed.push(live.id);
      },
      onDemand: () => told.push(pool.learnedDemand().length),
    });
    // Six remembered, one of them aged out and one from the future: four are left, up to the maximum.
    pool.remember([10_000, 50_000, 60_000, 70_000, 80_000, 90_000, 200_000]);
    expect(pool.learnedDemand()).toEqual([60_000, 70_000, 80_000, 90_000]);
    expect(pool.target).toBe(4);
    pool.fill();
    expect(g.inFlight()).toBe(3);
    await g.finishAll();
    expect(pool.available).toBe(4);
    expect(g.mostInFlight()).toBe(3);
    expect(primed).toEqual(['0', '1', '2', '3']);
    expect(told).toEqual([]); // remembering is not new demand: nothing to save
    pool.take();
    expect(told).toEqual([4]);
    expect(pool.learnedDemand()).toEqual([70_000, 80_000, 90_000, 100_000]);
    await g.finishAll();
    await pool.close();
  });

  it('remembers nothing with the pool off, and never more than its maximum', async () => {
    const g = gatedLauncher();
    const off = new WarmPool({ size: 0, maxSize: 0, logger, launch: g.launch, now: () => 1000 });
    off.remember([900, 950]);
    expect(off.target).toBe(0);
    expect(off.learnedDemand()).toEqual([]);
    const capped = new WarmPool({ size: 1, maxSize: 2, logger, launch: g.launch, now: () => 1000 });
    capped.remember([Number.NaN, 500, 900, 950, 990, Number.POSITIVE_INFINITY]);
    expect(capped.learnedDemand()).toEqual([950, 990]);
    expect(capped.target).toBe(2);
    await off.close();
    await capped.close();
  });

  it('a fixed pool (no maximum) and a pool of size 0 do not grow', async () => {
    const g = gatedLauncher();
    const fixed = new WarmPool({ size: 1, logger, launch: g.launch });
    fixed.fill();
    for (let i = 0; i < 5; i += 1) fixed.take();
    expect(fixed.target).toBe(1);
    const off = new WarmPool({ size: 0, maxSize: 0, logger, launch: g.launch });
    for (let i = 0; i < 5; i += 1) off.take();
    expect(off.target).toBe(0);
    await g.finishAll();
    expect(g.made).toHaveLength(1);
    await fixed.close();
    await off.close();
  });
});
