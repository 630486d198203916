import type { Job } from '../ports/job-queue.js';

/** Why a job ended without running to completion. */
export type DropReason = 'cancelled' | 'shutdown' | 'failed';

/**
 * Told about every job that will not run (cancelled while waiting, dropped at shutdown, or given up
 * after its retry), so the user can be told: nothing is dropped silently.
 */
export type OnDropped = (job: Job, reason: DropReason) => void | Promise<void>;

/** How a processed job ended, for metrics. */
export type JobOutcome = 'ok' | 'error' | 'cancelled';

/** What a queue reports as it works; src/ops/metrics.ts provides one backed by Prometheus. */
export interface QueueObserver {
  /** Jobs waiting or running in this queue right now (as far as this process knows). */
  depth(jobs: number): void;
  /** A job started `waitMs` after it was enqueued. */
  started(waitMs: number): void;
  /** A job finished after `durationMs`. */
  finished(durationMs: number, outcome: JobOutcome): void;
  /** Jobs of this worker parked right now: waiting on a person with their slot let go (THREADLAB_MAX_PARKED). */
  parked(jobs: number): void;
}

export const noopObserver: QueueObserver = { depth() {}, started() {}, finished() {}, parked() {} };

/** Calls onDropped, never letting its failure escape into the queue's own bookkeeping. */
export async function notifyDropped(
  onDropped: OnDropped | undefined,
  job: Job,
  reason: DropReason,
  log: { warn: (obj: object, msg: string) => void },
): Promise<void> {
  if (!onDropped) {
    log.warn({ job: job.id, thread: job.threadKey, reason }, 'job dropped and no onDropped handler is set');
    return;
  }
  try {
    await onDropped(job, reason);
  } catch (err) {
    log.warn({ job: job.id, thread: job.threadKey, reason, err }, 'onDropped handler failed');
  }
}
