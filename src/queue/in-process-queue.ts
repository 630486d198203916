import { ThreadlabError } from '../domain/errors.js';
import type { InboundMessage, InboundUser } from '../domain/messages.js';
import { threadKey } from '../domain/thread-key.js';
import type { Logger } from '../logger.js';
import type { EnqueueOptions, EnqueueResult, Job, JobProcessor, JobQueue } from '../ports/job-queue.js';
import { SeenIds } from './dedupe.js';
import { DEFAULT_LIMITS, limitSubject, type QueueLimits } from './limits.js';
import { MemoryLimiter } from './memory-limiter.js';
import { noopObserver, notifyDropped, type JobOutcome, type OnDropped, type QueueObserver } from './queue-events.js';
import { JobSlot, ParkingLot } from './parking.js';
import { runProcessor } from './run-processor.js';
import { Semaphore } from './semaphore.js';
import { settlesWithin } from './settles-within.js';

export interface InProcessJobQueueOptions {
  logger: Logger;
  /** Threads processed at once. @defaultValue 4 (THREADLAB_CONCURRENCY) */
  concurrency?: number;
  /**
   * Jobs parked at once (waiting on a person with their slot let go); past it a job keeps its slot while it waits.
   * @defaultValue 4 × `concurrency` (THREADLAB_MAX_PARKED)
   */
  maxParked?: number;
  /** @defaultValue {@link DEFAULT_LIMITS} */
  limits?: QueueLimits;
  /** How long a message id is remembered to drop redeliveries. @defaultValue 3_600_000 (1 h) */
  dedupeTtlMs?: number;
  /** After aborting at the close deadline, how long to wait for processors to return. @defaultValue 5000 */
  abortGraceMs?: number;
  onDropped?: OnDropped;
  observer?: QueueObserver;
  now?: () => number;
}

interface Running {
  job: Job;
  controller: AbortController;
  done: Promise<void>;
}

interface ThreadState {
  waiting: Job[];
  running?: Running;
}

/**
 * The embedded JobQueue: one thread's jobs run one at a time in arrival order, different threads
 * run concurrently up to `concurrency`. Nothing survives a restart; use BullMqJobQueue for that.
 */
export class InProcessJobQueue implements JobQueue {
  private readonly threads = new Map<string, ThreadState>();
  /** Threads with waiting jobs and nothing running, in the order they became ready. */
  private readonly ready: string[] = [];
  private readonly seen: SeenIds;
  private readonly limiter: MemoryLimiter;
  private readonly limits: QueueLimits;
  /** Slots of running jobs: a new job takes a free one; a job back from parking waits ahead of new ones. */
  private readonly slots: Semaphore;
  private readonly lot: ParkingLot;
  private readonly observer: QueueObserver;
  private readonly now: () => number;
  private processor: JobProcessor | undefined;
  private closing = false;

  constructor(private readonly options: InProcessJobQueueOptions) {
    this.now = options.now ?? Date.now;
    this.limits = options.limits ?? DEFAULT_LIMITS;
    this.limiter = new MemoryLimiter(this.limits, this.now);
    this.seen = new SeenIds(options.dedupeTtlMs ?? 3_600_000, this.now);
    this.observer = options.observer ?? noopObserver;
    const concurrency = options.concurrency ?? 4;
    this.slots = new Semaphore(concurrency);
    this.lot = new ParkingLot(options.maxParked ?? 4 * concurrency, (parked) => this.observer.parked(parked));
  }

  async enqueue(message: InboundMessage, options: EnqueueOptions = {}): Promise<EnqueueResult> {
    if (this.closing) {
      return {
        accepted: false,
        reason: 'queue_full',
        retryAfterMs: 30_000,
        message: 'Sorry, I am restarting and cannot take new requests right now. Please try again in about 30 seconds.',
      };
    }
    if (!this.seen.firstSight(message.id)) return { accepted: false, reason: 'duplicate', jobId: message.id };
    const refused = this.limiter.tryAdmit(limitSubject(message, options.origin));
    if (refused) {
      this.options.logger.info({ job: message.id, limit: refused.limit }, 'job refused by a limit');
      const { limit: _limit, ...result } = refused;
      return result;
    }
    const key = threadKey(message.thread);
    const job: Job = { id: message.id, threadKey: key, message, attempt: 1, enqueuedAtMs: this.now() };
    if (options.intent) job.intent = options.intent;
    if (options.origin) job.origin = options.origin;
    let state = this.threads.get(key);
    if (!state) {
      state = { waiting: [] };
      this.threads.set(key, state);
    }
    const position = state.waiting.length + (state.running ? 1 : 0);
    state.waiting.push(job);
    if (!state.running && state.waiting.length === 1) this.ready.push(key);
    this.observer.depth(this.limiter.length);
    this.pump();
    return { accepted: true, jobId: job.id, position };
  }

  async process(processor: JobProcessor): Promise<void> {
    this.processor = processor;
    this.pump();
  }

  async starter(key: string): Promise<InboundUser | undefined> {
    const state = this.threads.get(key);
    return (state?.running?.job ?? state?.waiting[0])?.message.user;
  }

  async cancel(key: string): Promise<boolean> {
    const state = this.threads.get(key);
    if (!state) return false;
    const dropped = state.waiting.splice(0);
    const readyAt = this.ready.indexOf(key);
    if (readyAt >= 0) this.ready.splice(readyAt, 1);
    if (!state.running) this.threads.delete(key);
    state.running?.controller.abort(new ThreadlabError('cancelled', 'The run was stopped.', { isPolicy: true }));
    for (const job of dropped) {
      this.limiter.release(limitSubject(job.message, job.origin));
      await notifyDropped(this.options.onDropped, job, 'cancelled', this.options.logger);
    }
    this.observer.depth(this.limiter.length);
    return dropped.length > 0 || state.running !== undefined;
  }

  async close(timeoutMs = 30_000): Promise<void> {
    this.closing = true;
    const dropped: Job[] = [];
    for (const key of this.ready.splice(0)) dropped.push(...(this.threads.get(key)?.waiting.splice(0) ?? []));
    for (const state of this.threads.values()) dropped.push(...state.waiting.splice(0));
    for (const job of dropped) {
      this.limiter.release(limitSubject(job.message, job.origin));
      await notifyDropped(this.options.onDropped, job, 'shutdown', this.options.logger);
    }
    const running = [...this.threads.values()].flatMap((s) => (s.running ? [s.running] : []));
    if (running.length === 0) return;
    const all = Promise.all(running.map((r) => r.done));
    if (await settlesWithin(all, timeoutMs)) return;
    this.options.logger.warn(
      { jobs: running.length, timeoutMs },
      'aborting jobs still running at the shutdown deadline',
    );
    const reason = new ThreadlabError('cancelled', 'Threadlab is shutting down.', { isRetryable: true });
    for (const r of running) r.controller.abort(reason);
    await settlesWithin(all, this.options.abortGraceMs ?? 5000);
  }

  private pump(): void {
    if (!this.processor || this.closing) return;
    while (this.ready.length > 0) {
      const key = this.ready[0]!;
      const state = this.threads.get(key);
      if (!state || state.waiting.length === 0) {
        this.ready.shift();
        continue;
      }
      if (!this.slots.tryAcquire()) return;
      this.ready.shift();
      this.start(state, state.waiting.shift()!, this.processor);
    }
  }

  private start(state: ThreadState, job: Job, processor: JobProcessor): void {
    const controller = new AbortController();
    const running: Running = { job, controller, done: Promise.resolve() };
    state.running = running;
    const slot = new JobSlot({
      slots: this.slots,
      lot: this.lot,
      signal: controller.signal,
      logger: this.options.logger.child({ job: job.id, thread: job.threadKey }),
      onRelease: () => this.pump(),
    });
    const startedAtMs = this.now();
    this.observer.started(startedAtMs - job.enqueuedAtMs);
    running.done = (async () => {
      let outcome: JobOutcome = 'error';
      try {
        const run = await runProcessor(processor, job, {
          signal: controller.signal,
          park: slot.park,
          logger: this.options.logger,
        });
        outcome = run.outcome;
        // Nothing survives this process: the user must hear that the message was not answered.
        if (run.thrown && run.outcome === 'cancelled' && this.closing)
          await notifyDropped(this.options.onDropped, job, 'shutdown', this.options.logger);
      } finally {
        this.observer.finished(this.now() - startedAtMs, outcome);
        this.finish(state, job, slot);
      }
    })();
  }

  private finish(state: ThreadState, job: Job, slot: JobSlot): void {
    state.running = undefined;
    this.limiter.release(limitSubject(job.message, job.origin));
    if (state.waiting.length > 0) this.ready.push(job.threadKey);
    else this.threads.delete(job.threadKey);
    this.observer.depth(this.limiter.length);
    // After the thread's next job is ready, so the freed slot may go to it.
    slot.end();
    this.pump();
  }
}
