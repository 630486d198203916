import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { WarmPool } from '../../../sandbox/warm-pool.js';
import { launchInto, type FakeContainer } from './pool-containers.js';

describe('WarmPool primes containers for recent demand and makes them lean once it ages out', () => {
  const logger = pino({ level: 'silent' });

  it('primes the containers it starts while sessions are beginning, not those it starts in quiet times', async () => {
    let nowMs = 0;
    const made: FakeContainer[] = [];
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
    const made: FakeContainer[] = [];
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
});
