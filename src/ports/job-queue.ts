import type { Intent } from '../domain/intent.js';
import type { InboundMessage, InboundUser } from '../domain/messages.js';
import type { JobOrigin } from '../domain/schedule.js';

/** One unit of work: a message of a thread. */
export interface Job {
  id: string;
  threadKey: string;
  message: InboundMessage;
  /**
   * What the message asks for, read once when it arrived. Absent on a job queued by an older version (or
   * without it): the worker reads it from `message` then.
   */
  intent?: Intent;
  /** Set when no person sent the message just now: a schedule fired it for its creator. */
  origin?: JobOrigin;
  /** 1 on first delivery; higher when retried after a worker died. */
  attempt: number;
  enqueuedAtMs: number;
}

export type EnqueueResult =
  | { accepted: true; jobId: string; position: number }
  | { accepted: false; reason: 'duplicate'; jobId: string }
  | { accepted: false; reason: 'rate_limited' | 'queue_full'; retryAfterMs: number; message: string };

export interface EnqueueOptions {
  /** What the message asks for, as the core read it on arrival. */
  intent?: Intent;
  /** Who or what queued it, when not the message's sender just now (a schedule); rides on the job. */
  origin?: JobOrigin;
}

export interface JobContext {
  /** Aborted when the user stops the run or the worker shuts down. */
  signal: AbortSignal;
  /**
   * Parks the job while `wait` runs: its worker slot goes to another thread meanwhile (the thread's own next
   * message still waits for this job), and is taken back, ahead of new jobs, before this resolves with what `wait`
   * gave or rejects with what it threw. For waits on a person (an approval), never for work. Past the worker's
   * parking limit (THREADLAB_MAX_PARKED), or once the job is stopped, `wait` runs with the slot kept; a job stopped
   * while parked comes back without waiting for a slot, to say it stopped. Unset: the job keeps its slot.
   */
  park?: <T>(wait: () => Promise<T>) => Promise<T>;
}

export type JobProcessor = (job: Job, context: JobContext) => Promise<void>;

/**
 * Work between the platforms and the interpreter. One thread's jobs run one at a time in arrival
 * order; different threads run concurrently. In-process by default, BullMQ on Redis to scale out.
 */
export interface JobQueue {
  /** Queues `message`; `options.intent` (what it asks for, read once) rides on its job. */
  enqueue(message: InboundMessage, options?: EnqueueOptions): Promise<EnqueueResult>;
  /** Starts processing jobs (worker role). */
  process(processor: JobProcessor): Promise<void>;
  /**
   * Who sent the message of the thread's running job (or, between jobs, of the next one waiting); undefined
   * when the thread has none. Read where Stop is pressed, which may be a gateway without the job.
   */
  starter(threadKey: string): Promise<InboundUser | undefined>;
  /** Cancels the running and waiting jobs of a thread; true when something was cancelled. */
  cancel(threadKey: string): Promise<boolean>;
  /** Stops taking jobs and waits for running ones, or hands them back, within `timeoutMs`. */
  close(timeoutMs?: number): Promise<void>;
}
