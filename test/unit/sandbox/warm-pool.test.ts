import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { LiveContainer } from '../../../sandbox/live-container.js';
import { WarmPool } from '../../../sandbox/warm-pool.js';

function fakeContainer(id: number) {
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const state = { alive: true, removed: false };
  const live = {
    id: String(id),
    get isAlive() {
      return state.alive;
    },
    connection: { closed },
    remove: async () => {
      state.removed = true;
      state.alive = false;
    },
  } as unknown as LiveContainer;
  return {
    live,
    state,
    die: () => {
      state.alive = false;
      resolveClosed();
    },
  };
}

/** A launcher that makes fake containers, numbered from 0, and keeps them in `made`. */
function launchInto(made: ReturnType<typeof fakeContainer>[]) {
  return async () => {
    const c = fakeContainer(made.length);
    made.push(c);
    return c.live;
  };
}

describe('WarmPool', () => {
  const logger = pino({ level: 'silent' });

  it('fills to size, hands each container out once and refills', async () => {
    const made: ReturnType<typeof fakeContainer>[] = [];
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
    const made: ReturnType<typeof fakeContainer>[] = [];
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
    const made: ReturnType<typeof fakeContainer>[] = [];
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

  describe('grows with recent demand and shrinks when it ages out', () => {
    /** A launcher whose starts finish when the test says, recording how many were in flight at once. */
    function gatedLauncher() {
      const made: ReturnType<typeof fakeContainer>[] = [];
      const pending: (() => void)[] = [];
      let inFlight = 0;
      let mostInFlight = 0;
      const launch = async () => {
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        await new Promise<void>((resolve) => pending.push(resolve));
        inFlight -= 1;
        const c = fakeContainer(made.length);
        made.push(c);
        return c.live;
      };
      const finishAll = async () => {
        while (pending.length > 0 || inFlight > 0) {
          for (const resolve of pending.splice(0)) resolve();
          await new Promise((r) => setTimeout(r, 0));
        }
      };
      return { launch, made, finishAll, mostInFlight: () => mostInFlight, inFlight: () => inFlight };
    }

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

    it('primes the containers it starts while sessions are beginning, not those it starts in quiet times', async () => {
      let nowMs = 0;
      const made: ReturnType<typeof fakeContainer>[] = [];
      const primed: string[] = [];
      let failPrime = false;
      const pool = new WarmPool({
        size: 1,
        maxSize: 2,
        demandWindowMs: 60_000,
        logger,
        now: () => nowMs,
        launch: launchInto(made),
        prime: async (live) => {
          if (failPrime) throw new Error('the kernel could not import pandas');
          primed.push(live.id);
        },
      });
      await pool.whenFull();
      expect(primed).toEqual([]); // started at rest: it waits without the data stack
      expect(pool.take()?.id).toBe('0');
      await pool.whenFull();
      expect(primed).toEqual(['1']); // a session began: the refill is primed
      // No session for longer than the window: the replacement of a container that died waits without it.
      nowMs = 61_000;
      made[1]!.die();
      await new Promise((r) => setTimeout(r, 0));
      await pool.whenFull();
      expect(made).toHaveLength(3);
      expect(primed).toEqual(['1']);
      // A failed prime leaves the container in the pool as it was.
      failPrime = true;
      pool.take();
      await pool.whenFull();
      expect(made).toHaveLength(4);
      expect(pool.available).toBe(1);
      await pool.close();
    });

    it('makes primed containers lean again once the demand they were primed for aged out', async () => {
      let nowMs = 0;
      const made: ReturnType<typeof fakeContainer>[] = [];
      const primed: string[] = [];
      const unprimed: string[] = [];
      let unprimeGate: Promise<void> = Promise.resolve();
      let failUnprime = false;
      const madeLean: string[] = [];
      const pool = new WarmPool({
        size: 1,
        demandWindowMs: 60_000,
        logger,
        observer: { size: () => {}, leanKernel: (where) => void madeLean.push(where) },
        now: () => nowMs,
        launch: launchInto(made),
        prime: async (live) => void primed.push(live.id),
        unprime: async (live) => {
          await unprimeGate;
          if (failUnprime) throw new Error('the runner could not start a new kernel');
          unprimed.push(live.id);
        },
      });
      await pool.whenFull();
      pool.take();
      await pool.whenFull();
      expect(primed).toEqual(['1']);
      // Demand still in the window: the primed container stays primed.
      await pool.unprimeWhenQuiet();
      expect(unprimed).toEqual([]);
      // The window passed: it goes lean and back into the pool, where it is handed out as before.
      nowMs = 61_000;
      let open!: () => void;
      unprimeGate = new Promise((r) => (open = r));
      const quiet = pool.unprimeWhenQuiet();
      await new Promise((r) => setTimeout(r, 0));
      // While its kernel is replaced it is out of the pool, and the pool starts no replacement for it.
      expect(pool.available).toBe(0);
      expect(made).toHaveLength(2);
      open();
      await quiet;
      expect(unprimed).toEqual(['1']);
      expect(madeLean).toEqual(['pool']);
      expect(pool.available).toBe(1);
      await pool.unprimeWhenQuiet(); // nothing left primed: nothing done twice
      expect(unprimed).toEqual(['1']);
      expect(pool.take()?.id).toBe('1');
      // A container that could not be made lean is removed and replaced.
      await pool.whenFull();
      expect(primed).toEqual(['1', '2']);
      nowMs = 200_000;
      failUnprime = true;
      await pool.unprimeWhenQuiet();
      expect(made[2]!.state.removed).toBe(true);
      expect(madeLean).toEqual(['pool']); // a failure is not counted
      await pool.whenFull();
      expect(made).toHaveLength(4);
      expect(pool.take()?.id).toBe('3');
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
});
