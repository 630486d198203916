import type { Worker } from 'bullmq';

/**
 * Makes a BullMQ worker look at its `concurrency` again now. Raising it (a public setter) takes effect when the
 * worker's main loop next turns, which is when one of its jobs ends: with every job parked on a person for minutes,
 * that would be minutes. The loop waits on its queue of job promises (private, `mainLoopQueue`); a settled promise
 * added there turns it once, and it fetches up to the new concurrency. Checked against the pinned BullMQ by the
 * parking contract (test/contract/job-queue-parking-contract.ts), which fails if this stops waking it.
 * @returns false when the worker has no running loop to wake (not started, or closing)
 */
export function wakeFetching(worker: Worker): boolean {
  const loop = (worker as unknown as { mainLoopQueue?: { add?: (promise: Promise<unknown>) => void } | null })
    .mainLoopQueue;
  if (typeof loop?.add !== 'function') return false;
  loop.add(Promise.resolve(undefined));
  return true;
}
