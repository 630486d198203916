import { afterEach, describe, expect, it } from 'vitest';
import { threadKey } from '../../src/domain/thread-key.js';
import type { JobContext, JobQueue } from '../../src/ports/job-queue.js';
import type { JobQueueFactory, QueueUnderTest } from './job-queue-contract.js';
import { DEFAULT_LIMITS, type QueueLimits } from '../../src/queue/limits.js';
import { sleep, testMessage, waitFor } from './messages.js';

const roomy: QueueLimits = {
  ...DEFAULT_LIMITS,
  userMaxConcurrent: 1000,
  userMaxPerMinute: 1000,
  workspaceMaxConcurrent: 1000,
  workspaceMaxPerMinute: 1000,
  maxQueueLength: 1000,
};

/** A promise and its resolve, for a job to wait on until the test lets it go. */
function latch<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open: (value: T) => void = () => undefined;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

/** Lets every pending callback and microtask run: what needs no slot and no Redis is done after it. */
const ticks = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** Waits on the abort of `signal`: rejects with its reason, like the approval gate's wait when the turn is stopped. */
const untilStopped = (signal: AbortSignal): Promise<never> =>
  new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });

/** `promise`, or the job's stop: a failing test's jobs end when the queue is closed, not hang its cleanup. */
const orStop = <T>(promise: Promise<T>, signal: AbortSignal): Promise<T> =>
  Promise.race([promise, untilStopped(signal)]);

/**
 * Parking ({@link JobContext.park}): a job waiting on a person lets its worker slot go and takes one back when the
 * wait ends, within a bound; every JobQueue implements it alike. Registers a describe block named after it.
 */
export function jobQueueParkingContract(name: string, factory: JobQueueFactory): void {
  describe(`JobQueue parking: ${name}`, () => {
    const made: QueueUnderTest[] = [];
    const make = async (concurrency: number, maxParked?: number): Promise<JobQueue> => {
      const qut = await factory({
        limits: roomy,
        concurrency,
        onDropped: () => undefined,
        ...(maxParked === undefined ? {} : { maxParked }),
      });
      made.push(qut);
      return qut.queue;
    };
    afterEach(async () => {
      await Promise.all(made.splice(0).map((q) => q.dispose()));
    });

    /** The job's park: every queue gives one. */
    const parkOf = (context: JobContext): NonNullable<JobContext['park']> => {
      if (!context.park) throw new Error('the queue gave the job no park');
      return context.park;
    };

    it('a parked job lets another thread run in its slot, and comes back with what it waited for', async () => {
      const queue = await make(1);
      const person = latch<string>();
      const events: string[] = [];
      await queue.process(async (job, context) => {
        if (job.message.text === 'waits') {
          const decided = await parkOf(context)(async () => {
            events.push('parked');
            return orStop(person.promise, context.signal);
          });
          events.push(`back with ${decided}`);
        } else events.push(`ran ${job.message.text}`);
      });
      await queue.enqueue(testMessage({ thread: 'park-a', text: 'waits' }));
      await waitFor(() => events.includes('parked'), 10_000, 'the job to park');
      await queue.enqueue(testMessage({ thread: 'park-b', text: 'print' }));
      await waitFor(() => events.includes('ran print'), 10_000, 'the other thread to run while one is parked');
      person.open('run');
      await waitFor(() => events.includes('back with run'), 10_000, 'the parked job to come back');
      expect(events).toEqual(['parked', 'ran print', 'back with run']);
    });

    it("a thread's next message still waits for its parked job", async () => {
      const queue = await make(1);
      const person = latch();
      const events: string[] = [];
      await queue.process(async (job, context) => {
        events.push(`start ${job.message.text}`);
        if (job.message.text === 'a1') await parkOf(context)(() => orStop(person.promise, context.signal));
        events.push(`end ${job.message.text}`);
      });
      await queue.enqueue(testMessage({ thread: 'order-a', text: 'a1' }));
      await waitFor(() => events.includes('start a1'), 10_000, 'a1 to start');
      await queue.enqueue(testMessage({ thread: 'order-a', text: 'a2' }));
      await queue.enqueue(testMessage({ thread: 'order-b', text: 'b' }));
      await waitFor(() => events.includes('end b'), 10_000, 'the other thread to run');
      expect(events).not.toContain('start a2');
      person.open();
      await waitFor(() => events.includes('end a2'), 10_000, 'a2 after a1');
      expect(events.filter((e) => / a\d$/.test(e))).toEqual(['start a1', 'end a1', 'start a2', 'end a2']);
    });

    it('a job back from parking waits for a free slot: the worker never runs more than its concurrency', async () => {
      const queue = await make(1);
      const person = latch();
      const other = latch();
      const events: string[] = [];
      await queue.process(async (job, context) => {
        if (job.message.text === 'parks') {
          await parkOf(context)(async () => {
            events.push('parked');
            await orStop(person.promise, context.signal);
          });
          events.push('back');
        } else {
          events.push('other running');
          await orStop(other.promise, context.signal);
          events.push('other done');
        }
      });
      await queue.enqueue(testMessage({ thread: 'slot-a', text: 'parks' }));
      await waitFor(() => events.includes('parked'), 10_000, 'the job to park');
      await queue.enqueue(testMessage({ thread: 'slot-b', text: 'holds' }));
      await waitFor(() => events.includes('other running'), 10_000, 'the other job to take the slot');
      person.open();
      await ticks();
      expect(events).not.toContain('back');
      other.open();
      await waitFor(() => events.includes('back'), 10_000, 'the parked job to come back');
      expect(events).toEqual(['parked', 'other running', 'other done', 'back']);
    });

    it('past THREADLAB_MAX_PARKED a waiting job keeps its slot, so the next thread waits for it', async () => {
      const queue = await make(1, 1);
      const people = { a: latch(), b: latch() };
      const events: string[] = [];
      await queue.process(async (job, context) => {
        const text = job.message.text as 'a' | 'b' | 'c';
        events.push(`start ${text}`);
        if (text !== 'c') await parkOf(context)(() => orStop(people[text].promise, context.signal));
        events.push(`end ${text}`);
      });
      await queue.enqueue(testMessage({ thread: 'bound-a', text: 'a' }));
      await waitFor(() => events.includes('start a'), 10_000, 'a to start and park');
      await queue.enqueue(testMessage({ thread: 'bound-b', text: 'b' }));
      await waitFor(() => events.includes('start b'), 10_000, 'b to run in the slot a let go');
      await queue.enqueue(testMessage({ thread: 'bound-c', text: 'c' }));
      // The lot (1) is full with a: b waits holding the only slot, so c must not start. A window to see that.
      await sleep(500);
      expect(events).not.toContain('start c');
      people.b.open();
      await waitFor(() => events.includes('end c'), 10_000, 'c once b let the slot go');
      expect(events.indexOf('end b')).toBeLessThan(events.indexOf('start c'));
      people.a.open();
      await waitFor(() => events.includes('end a'), 10_000, 'a to come back and end');
    });

    it('a parked job that is stopped ends at once, without waiting for a slot', async () => {
      const queue = await make(1);
      const other = latch();
      const events: string[] = [];
      await queue.process(async (job, context) => {
        if (job.message.text === 'parks') {
          await parkOf(context)(async () => {
            events.push('parked');
            await untilStopped(context.signal);
          }).catch(() => events.push('stopped while parked'));
          events.push('parked job ended');
        } else {
          events.push('other running');
          await orStop(other.promise, context.signal);
        }
      });
      const parked = testMessage({ thread: 'stop-a', text: 'parks' });
      await queue.enqueue(parked);
      await waitFor(() => events.includes('parked'), 10_000, 'the job to park');
      await queue.enqueue(testMessage({ thread: 'stop-b', text: 'holds' }));
      await waitFor(() => events.includes('other running'), 10_000, 'the other job to take the only slot');
      expect(await queue.cancel(threadKey(parked.thread))).toBe(true);
      await waitFor(
        () => events.includes('parked job ended'),
        10_000,
        'the stopped job to end while the slot is taken',
      );
      expect(events).toEqual(['parked', 'other running', 'stopped while parked', 'parked job ended']);
      other.open();
    });
  });
}
