import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.js';
import { JobSlot, ParkingLot } from '../../../src/queue/parking.js';
import { Semaphore } from '../../../src/queue/semaphore.js';

const logger = createLogger({ level: 'silent' });

/** Lets pending callbacks and microtasks run. */
const ticks = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('Semaphore: first and signal', () => {
  it('a `first` waiter goes ahead of those already waiting', async () => {
    const slots = new Semaphore(1);
    expect(slots.tryAcquire()).toBe(true);
    expect(slots.tryAcquire()).toBe(false);
    const order: string[] = [];
    const queued = slots.acquire().then(() => order.push('queued'));
    const first = slots.acquire({ first: true }).then(() => order.push('first'));
    slots.release();
    await first;
    slots.release();
    await queued;
    expect(order).toEqual(['first', 'queued']);
  });

  it('a waiter whose signal aborts gives up without a slot, and the slot goes to the next', async () => {
    const slots = new Semaphore(1);
    await slots.acquire();
    const stop = new AbortController();
    const gaveUp = slots.acquire({ signal: stop.signal });
    const next = slots.acquire();
    stop.abort();
    expect(await gaveUp).toBe(false);
    slots.release();
    expect(await next).toBe(true);
    expect(slots.tryAcquire()).toBe(false);
    expect(await slots.acquire({ signal: stop.signal })).toBe(false);
  });
});

describe('JobSlot', () => {
  const slotOf = (slots: Semaphore, lot: ParkingLot, signal = new AbortController().signal) =>
    new JobSlot({ slots, lot, signal, logger });

  it('parks: the slot goes to a waiting job, and comes back ahead of jobs that waited before', async () => {
    const slots = new Semaphore(1);
    const lot = new ParkingLot(4);
    await slots.acquire();
    const parked = slotOf(slots, lot);
    const order: string[] = [];
    let decide: (v: string) => void = () => undefined;
    const waited = parked.park(() => new Promise<string>((r) => (decide = r)));
    // The parked job's slot was let go: one waiting job gets it, a later one waits.
    expect(await slots.acquire()).toBe(true);
    expect(lot.size).toBe(1);
    const later = slots.acquire().then(() => order.push('later job'));
    decide('run');
    await ticks();
    expect(order).toEqual([]); // no free slot yet: the parked job waits too, ahead of the later one
    slots.release();
    expect(await waited).toBe('run');
    order.push('parked job back');
    expect(lot.size).toBe(0);
    parked.end();
    await later;
    expect(order).toEqual(['parked job back', 'later job']);
  });

  it('with the lot full, the wait runs with the slot kept', async () => {
    const slots = new Semaphore(1);
    const lot = new ParkingLot(0);
    await slots.acquire();
    const job = slotOf(slots, lot);
    expect(await job.park(async () => slots.tryAcquire())).toBe(false);
    job.end();
    expect(slots.tryAcquire()).toBe(true);
  });

  it('a job stopped while parked comes back without a slot, and its end frees none', async () => {
    const slots = new Semaphore(1);
    const lot = new ParkingLot(1);
    await slots.acquire();
    const stop = new AbortController();
    const job = slotOf(slots, lot, stop.signal);
    const waited = job.park(
      () =>
        new Promise<never>((_, reject) => stop.signal.addEventListener('abort', () => reject(new Error('stopped')))),
    );
    expect(slots.tryAcquire()).toBe(true); // another job takes the slot the parked one let go
    stop.abort();
    await expect(waited).rejects.toThrow('stopped');
    job.end();
    expect(slots.tryAcquire()).toBe(false); // still the other job's: the stopped one held none
    expect(lot.size).toBe(0);
  });
});
