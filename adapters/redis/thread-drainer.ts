import { UnrecoverableError } from 'bullmq';
import { ThreadlabError } from '../../src/domain/errors.js';
import type { InboundMessage } from '../../src/domain/messages.js';
import { isIntent, type Intent } from '../../src/domain/intent.js';
import type { JobOrigin } from '../../src/domain/schedule.js';
import type { Logger } from '../../src/logger.js';
import type { Job, JobProcessor } from '../../src/ports/job-queue.js';
import { notifyDropped, type JobOutcome, type OnDropped, type QueueObserver } from '../../src/queue/queue-events.js';
import { runProcessor } from '../../src/queue/run-processor.js';
import { JobSlot, type ParkingLot } from '../../src/queue/parking.js';
import type { Semaphore } from '../../src/queue/semaphore.js';
import type { QueueScripts } from './queue-scripts.js';

/** What a thread list stores per event (plain JSON). */
export interface StoredJob {
  message: InboundMessage;
  /** What the message asks for, read once by the gateway; absent in records written before it rode along. */
  intent?: Intent;
  /** A schedule's firing, for its creator (absent: the message's sender sent it). */
  origin?: JobOrigin;
  enqueuedAtMs: number;
}

/** The Job of a stored record; an intent that is not one is left out (the worker reads it from the message). */
export function jobOf(stored: StoredJob, o: { id: string; threadKey: string; attempt: number }): Job {
  const job: Job = { ...o, message: stored.message, enqueuedAtMs: stored.enqueuedAtMs };
  if (isIntent(stored.intent)) job.intent = stored.intent;
  const origin = stored.origin;
  if (origin?.kind === 'schedule' && typeof origin.scheduleId === 'string' && typeof origin.label === 'string')
    job.origin = origin;
  return job;
}

/** Abort reason when the worker shuts down: the job is handed back, not finished. */
export const SHUTDOWN = new ThreadlabError('cancelled', 'Threadlab is shutting down; the run will be retried.', {
  isRetryable: true,
});
/** Abort reason when the user stops the thread. */
export const STOPPED = new ThreadlabError('cancelled', 'The run was stopped.', { isPolicy: true });

export interface ThreadDrainerOptions {
  scripts: QueueScripts;
  processor: JobProcessor;
  logger: Logger;
  observer: QueueObserver;
  onDropped: OnDropped | undefined;
  threadLockTtlMs: number;
  /** This worker's id, recorded as the thread's affinity for `affinityTtlMs` when it runs an event. */
  workerId: string;
  affinityTtlMs: number;
  /** Processor runs at once on this worker (shared by its shared-queue and own-queue BullMQ workers). */
  slots: Semaphore;
  /** Runs of this worker parked at once, waiting on a person with their slot let go (THREADLAB_MAX_PARKED). */
  parking: ParkingLot;
  /** Deliveries of one event before it is given up (reported as 'failed'). */
  maxAttempts: number;
  /**
   * Events run per drain job before the thread goes to the back of the queue, so one busy thread
   * cannot hold a worker slot while other threads wait. @defaultValue 1
   */
  runsPerTurn?: number;
  isClosing: () => boolean;
  /** Adds a fresh drain job for a thread this worker lets go of while it still has events. */
  retrigger: (thread: string) => Promise<void>;
}

/**
 * Runs a thread's events one by one while this BullMQ job owns the thread's lock. The lock names the
 * BullMQ job, so a stalled job re-delivered to another worker takes over where the dead one stopped.
 */
export class ThreadDrainer {
  private readonly running = new Map<string, AbortController>();

  constructor(private readonly o: ThreadDrainerOptions) {}

  /** Drains `thread` as owner `owner` (the BullMQ job id) until it is empty or taken by another job. */
  async drain(thread: string, owner: string, outer?: AbortSignal): Promise<void> {
    for (let runs = 0; ; runs++) {
      if (this.o.isClosing() || outer?.aborted || runs >= (this.o.runsPerTurn ?? 1))
        return this.handBack(thread, owner);
      const [state, id, payload, attempts] = await this.o.scripts.begin({
        thread,
        owner,
        ttlMs: this.o.threadLockTtlMs,
        worker: this.o.workerId,
        affinityTtlMs: this.o.affinityTtlMs,
      });
      if (state !== 'run' || !id || !payload) return;
      let stored: StoredJob;
      try {
        stored = JSON.parse(payload) as StoredJob;
      } catch (cause) {
        await this.o.scripts.finish(thread, id);
        throw new UnrecoverableError(`event ${id} has an unreadable record: ${String(cause)}`);
      }
      const job = jobOf(stored, { id, threadKey: thread, attempt: Number(attempts) });
      if (job.attempt > this.o.maxAttempts) {
        this.o.observer.depth(await this.o.scripts.finish(thread, id));
        this.o.logger.warn({ job: id, thread, attempt: job.attempt }, 'giving up an event after repeated worker loss');
        await notifyDropped(this.o.onDropped, job, 'failed', this.o.logger);
        continue;
      }
      const handedBack = await this.runOne(job, owner, outer);
      if (handedBack) return this.handBack(thread, owner);
      this.o.observer.depth(await this.o.scripts.finish(thread, id));
    }
  }

  /** Aborts the run of `thread` on this worker, if any; true when one was running here. */
  abortThread(thread: string, reason: unknown): boolean {
    const controller = this.running.get(thread);
    controller?.abort(reason);
    return controller !== undefined;
  }

  abortAll(reason: unknown): void {
    for (const controller of this.running.values()) controller.abort(reason);
  }

  get activeThreads(): number {
    return this.running.size;
  }

  /** Runs the processor; true when the run was interrupted by shutdown and must be handed back. */
  private async runOne(job: Job, owner: string, outer?: AbortSignal): Promise<boolean> {
    const controller = new AbortController();
    const onOuter = (): void => controller.abort(SHUTDOWN);
    outer?.addEventListener('abort', onOuter, { once: true });
    this.running.set(job.threadKey, controller);
    const renew = setInterval(
      () => {
        this.o.scripts.renew(job.threadKey, owner, this.o.threadLockTtlMs).then(
          (kept) => {
            if (kept) return;
            this.o.logger.warn({ job: job.id, thread: job.threadKey }, 'lost the thread lock; stopping this run');
            controller.abort(SHUTDOWN);
          },
          (err: unknown) => this.o.logger.warn({ err, thread: job.threadKey }, 'could not renew the thread lock'),
        );
      },
      Math.max(100, Math.floor(this.o.threadLockTtlMs / 3)),
    );
    await this.o.slots.acquire();
    const slot = new JobSlot({
      slots: this.o.slots,
      lot: this.o.parking,
      signal: controller.signal,
      logger: this.o.logger.child({ job: job.id, thread: job.threadKey }),
    });
    const startedAtMs = Date.now();
    if (job.attempt === 1) this.o.observer.started(startedAtMs - job.enqueuedAtMs);
    let outcome: JobOutcome = 'error';
    try {
      const context = { signal: controller.signal, park: slot.park, logger: this.o.logger };
      outcome = (await runProcessor(this.o.processor, job, context)).outcome;
    } finally {
      slot.end();
      clearInterval(renew);
      outer?.removeEventListener('abort', onOuter);
      this.running.delete(job.threadKey);
      this.o.observer.finished(Date.now() - startedAtMs, outcome);
    }
    return controller.signal.aborted && controller.signal.reason === SHUTDOWN;
  }

  private async handBack(thread: string, owner: string): Promise<void> {
    const left = await this.o.scripts.release(thread, owner);
    if (left > 0) await this.o.retrigger(thread);
  }
}
