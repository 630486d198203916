/**
 * BullMqJobQueue: the JobQueue on Redis with BullMQ, for several gateway and worker processes.
 *
 * Design (BullMQ groups are Pro-only, so per-thread order is ours):
 * - `enqueue` runs one Lua script that dedupes by event id, applies the limits and appends the event
 *   id to the thread's Redis list; then it adds a BullMQ "drain" job with jobId = `m-<event id>`,
 *   unless the event queued behind a thread that a drain job owns (that owner runs it or hands back).
 * - A drain job takes the thread's lock (value = its own BullMQ job id) and runs the list's head,
 *   removing it only when done. The lock is released atomically with the emptiness check, so an event
 *   appended meanwhile is seen either by the owner or by its own drain job. Drain jobs that find the
 *   thread owned by another job end at once. After `runsPerTurn` events the owner lets go and adds a
 *   fresh drain job at the back, so threads share worker slots round-robin.
 * - A SIGKILLed worker's drain job is moved back by BullMQ's stalled-job check (lockDurationMs +
 *   stalledIntervalMs, about 10–20 s by default) and re-delivered; it still owns the thread (same job
 *   id), so it re-runs the head with `attempt` 2 and the processor can tell the user the variables were
 *   reset. Past `maxAttempts` the event is given up and reported through onDropped('failed').
 * - Affinity: running an event records `aff:<thread> = workerId`. While that worker's heartbeat lives,
 *   drain jobs for the thread go to its own queue `<name>-w-<workerId>`; otherwise to the shared one.
 *   Live workers sweep for dead ones and move their own-queue jobs to the shared queue, releasing the
 *   thread locks they held (the interrupted event then runs elsewhere with `attempt` 2).
 * - `cancel` drops the waiting events in Redis and publishes the thread on a channel every worker
 *   listens to; the worker running it aborts the job's AbortSignal.
 * - `close` marks the worker as draining (no new affinity jobs; the heartbeat goes on, so peers do
 *   not take it for dead and re-run what it is finishing), waits for runs up to the deadline, then
 *   aborts them and hands their threads back (re-queued at once, not left for the stalled check).
 */
import { randomUUID } from 'node:crypto';
import { Worker, type Job as BullJob } from 'bullmq';
import type { Redis } from 'ioredis';
import type { InboundMessage, InboundUser } from '../../src/domain/messages.js';
import { threadKey } from '../../src/domain/thread-key.js';
import type { Logger } from '../../src/logger.js';
import type { EnqueueOptions, EnqueueResult, JobProcessor, JobQueue } from '../../src/ports/job-queue.js';
import {
  DEFAULT_LIMITS,
  limitSubject,
  limitsFor,
  RATE_WINDOW_MS,
  refusal,
  type LimitKind,
  type QueueLimits,
} from '../../src/queue/limits.js';
import { noopObserver, notifyDropped, type OnDropped, type QueueObserver } from '../../src/queue/queue-events.js';
import { ParkingLot } from '../../src/queue/parking.js';
import { Semaphore } from '../../src/queue/semaphore.js';
import { settlesWithin } from '../../src/queue/settles-within.js';
import { bullConnection, closeRedis, createRedis, throttledWarn } from './connection.js';
import { DrainRouter, type DrainData } from './drain-router.js';
import { QueueScripts } from './queue-scripts.js';
import { jobOf, SHUTDOWN, STOPPED, ThreadDrainer, type StoredJob } from './thread-drainer.js';
import { WorkerRegistry } from './worker-registry.js';
import { wakeFetching } from './worker-wake.js';

export interface BullMqJobQueueOptions {
  redisUrl: string;
  logger: Logger;
  /** BullMQ queue name; gateways and workers that share it share the work. @defaultValue 'jobs' */
  queueName?: string;
  /** Prefix of every Redis key. @defaultValue 'threadlab' */
  keyPrefix?: string;
  /** Events this worker runs at once. @defaultValue 4 (THREADLAB_CONCURRENCY) */
  concurrency?: number;
  /**
   * Runs of this worker parked at once (waiting on a person with their slot let go); past it a run keeps its slot
   * while it waits. Each parked run lets the BullMQ workers fetch one drain job more than `concurrency`, so parked
   * runs do not stop fetching, and a worker with none parked fetches no more than its slots.
   * @defaultValue 4 × `concurrency` (THREADLAB_MAX_PARKED)
   */
  maxParked?: number;
  limits?: QueueLimits;
  /** How long an event id is remembered to drop redeliveries. @defaultValue 3_600_000 */
  dedupeTtlMs?: number;
  /** How long a waiting event is kept at most. @defaultValue 86_400_000 */
  messageTtlMs?: number;
  /** Deliveries of one event: 2 = retried once after its worker died. @defaultValue 2 */
  maxAttempts?: number;
  /** BullMQ job lock; a dead worker's job is moved back after about this plus stalledIntervalMs. @defaultValue 10_000 */
  lockDurationMs?: number;
  /** How often workers look for stalled jobs. @defaultValue 5000 */
  stalledIntervalMs?: number;
  /** TTL of a thread's lock, renewed every third of it while a run goes on. @defaultValue 30_000 */
  threadLockTtlMs?: number;
  /** Events a drain job runs before the thread goes to the back of the queue. @defaultValue 1 */
  runsPerTurn?: number;
  /** How long a thread keeps going to the worker that ran it last (match the sandbox idle TTL). @defaultValue 3_600_000 */
  affinityTtlMs?: number;
  /** Worker heartbeat period; a worker silent for heartbeatTtlMs is dead. @defaultValue 3000 */
  heartbeatIntervalMs?: number;
  /** @defaultValue 10_000 */
  heartbeatTtlMs?: number;
  /** After aborting at the close deadline, how long to wait for processors to return. @defaultValue 5000 */
  abortGraceMs?: number;
  /** Unique per worker process; names its own queue. @defaultValue `w<random>` */
  workerId?: string;
  onDropped?: OnDropped;
  observer?: QueueObserver;
}

const toJobId = (prefix: string, id: string): string => `${prefix}-${encodeURIComponent(id)}`;

export class BullMqJobQueue implements JobQueue {
  /** This process's worker id (meaningful once `process` was called). */
  readonly workerId: string;
  private readonly redis: Redis;
  private readonly scripts: QueueScripts;
  private readonly router: DrainRouter;
  private readonly limits: QueueLimits;
  private readonly channel: string;
  private readonly log: Logger;
  private subscriber: Redis | undefined;
  private workers: Worker<DrainData>[] = [];
  private drainer: ThreadDrainer | undefined;
  private registry: WorkerRegistry | undefined;
  private closing = false;

  constructor(private readonly o: BullMqJobQueueOptions) {
    const name = o.queueName ?? 'jobs';
    const prefix = o.keyPrefix ?? 'threadlab';
    this.workerId = o.workerId ?? `w${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    this.log = o.logger.child({ queue: name });
    this.limits = o.limits ?? DEFAULT_LIMITS;
    this.redis = createRedis(o.redisUrl, { logger: this.log, purpose: 'queue' });
    this.scripts = new QueueScripts(this.redis, `${prefix}:${name}:tl`);
    this.channel = `${prefix}:${name}:tl:cancel`;
    this.router = new DrainRouter({ redisUrl: o.redisUrl, name, prefix, logger: this.log });
  }

  async enqueue(message: InboundMessage, options: EnqueueOptions = {}): Promise<EnqueueResult> {
    const thread = threadKey(message.thread);
    const subject = limitSubject(message, options.origin);
    const stored: StoredJob = {
      message,
      ...(options.intent ? { intent: options.intent } : {}),
      ...(options.origin ? { origin: options.origin } : {}),
      enqueuedAtMs: Date.now(),
    };
    const l = limitsFor(subject, this.limits);
    const [state, a, b, trigger, route] = await this.scripts.enqueue({
      id: message.id,
      thread,
      user: subject.user,
      workspace: subject.workspace,
      payload: JSON.stringify(stored),
      dedupeTtlMs: this.o.dedupeTtlMs ?? 3_600_000,
      msgTtlMs: this.o.messageTtlMs ?? 86_400_000,
      limits: [
        l.userMaxConcurrent,
        l.userMaxPerMinute,
        l.workspaceMaxConcurrent,
        l.workspaceMaxPerMinute,
        l.maxQueueLength,
      ],
      windowMs: RATE_WINDOW_MS,
    });
    if (state === 'duplicate') return { accepted: false, reason: 'duplicate', jobId: message.id };
    if (state === 'refused') {
      const kind = a as LimitKind;
      const { limit: _limit, ...result } = refusal(kind, Number(b) > 0 ? Number(b) : l.busyRetryAfterMs, l);
      this.log.info({ job: message.id, limit: kind }, 'job refused by a limit');
      return result;
    }
    this.o.observer?.depth(Number(b));
    if (Number(trigger) === 1) await this.router.add(thread, toJobId('m', message.id), route ?? '');
    return { accepted: true, jobId: message.id, position: Number(a) };
  }

  async process(processor: JobProcessor): Promise<void> {
    if (this.drainer) throw new Error('process() was already called');
    const concurrency = this.o.concurrency ?? 4;
    // A parked run's drain job stays active in BullMQ: one more fetch for each, or parked runs would stop fetching.
    const parking = new ParkingLot(this.o.maxParked ?? 4 * concurrency, (parked) => {
      this.o.observer?.parked(parked);
      for (const worker of this.workers) {
        worker.concurrency = concurrency + parked;
        wakeFetching(worker);
      }
    });
    const drainer = new ThreadDrainer({
      scripts: this.scripts,
      processor,
      logger: this.log,
      observer: this.o.observer ?? noopObserver,
      onDropped: this.o.onDropped,
      threadLockTtlMs: this.o.threadLockTtlMs ?? 30_000,
      maxAttempts: this.o.maxAttempts ?? 2,
      runsPerTurn: this.o.runsPerTurn,
      workerId: this.workerId,
      affinityTtlMs: this.o.affinityTtlMs ?? 3_600_000,
      slots: new Semaphore(concurrency),
      parking,
      isClosing: () => this.closing,
      retrigger: async (thread) =>
        this.router.add(thread, toJobId('h', randomUUID()), await this.scripts.route(thread)),
    });
    this.drainer = drainer;
    this.subscriber = this.redis.duplicate();
    this.subscriber.on('error', () => {});
    this.subscriber.on('message', (_channel: string, thread: string) => {
      if (drainer.abortThread(thread, STOPPED)) this.log.info({ thread }, 'run stopped on request');
    });
    await this.subscriber.subscribe(this.channel);
    for (const name of [this.router.shared.name, this.router.personalName(this.workerId)]) {
      const worker = new Worker<DrainData>(
        name,
        async (job: BullJob<DrainData>, _token?: string, signal?: AbortSignal) =>
          drainer.drain(job.data.thread, job.id!, signal),
        {
          connection: bullConnection(this.o.redisUrl),
          prefix: this.o.keyPrefix ?? 'threadlab',
          name: this.workerId,
          concurrency,
          lockDuration: this.o.lockDurationMs ?? 10_000,
          stalledInterval: this.o.stalledIntervalMs ?? 5000,
          maxStalledCount: 1,
        },
      );
      worker.on('error', throttledWarn(this.log, `bullmq worker ${name} error`));
      worker.on('failed', (job, err) => void this.onDrainFailed(job, err));
      this.workers.push(worker);
    }
    await Promise.all(this.workers.map((w) => w.waitUntilReady()));
    this.registry = new WorkerRegistry({
      redis: this.redis,
      prefix: this.scripts.prefix,
      workerId: this.workerId,
      logger: this.log,
      heartbeatIntervalMs: this.o.heartbeatIntervalMs,
      heartbeatTtlMs: this.o.heartbeatTtlMs,
      onDeadWorker: (id) => this.adoptJobsOf(id),
    });
    await this.registry.start();
  }

  async starter(thread: string): Promise<InboundUser | undefined> {
    const payload = await this.scripts.head(thread);
    if (!payload) return undefined;
    try {
      return (JSON.parse(payload) as StoredJob).message.user;
    } catch {
      return undefined; // an unreadable record never runs (the drainer gives it up): nothing to guard
    }
  }

  async cancel(thread: string): Promise<boolean> {
    const { running, dropped } = await this.scripts.cancel(thread);
    if (running) await this.redis.publish(this.channel, thread);
    for (const payload of dropped) {
      const stored = JSON.parse(payload) as StoredJob;
      const job = jobOf(stored, { id: stored.message.id, threadKey: thread, attempt: 1 });
      await notifyDropped(this.o.onDropped, job, 'cancelled', this.log);
    }
    return running || dropped.length > 0;
  }

  async close(timeoutMs = 30_000): Promise<void> {
    this.closing = true;
    // Keep beating while running jobs finish, or peers would take this worker for dead and re-run them.
    await this.registry
      ?.drain()
      .catch((err: unknown) => this.log.warn({ err }, 'could not mark this worker as draining'));
    if (this.drainer && this.workers.length > 0) {
      const closed = Promise.all(this.workers.map((w) => w.close()));
      if (!(await settlesWithin(closed, timeoutMs))) {
        this.log.warn(
          { threads: this.drainer.activeThreads, timeoutMs },
          'aborting runs at the shutdown deadline; they are handed back',
        );
        this.drainer.abortAll(SHUTDOWN);
        if (!(await settlesWithin(closed, this.o.abortGraceMs ?? 5000)))
          await Promise.all(this.workers.map((w) => w.close(true)));
      }
      try {
        await this.adoptJobsOf(this.workerId);
        await this.registry?.stop();
        await this.registry?.leave();
      } catch (err) {
        await this.registry?.stop().catch(() => undefined);
        this.log.warn({ err }, 'could not hand back this worker’s own queue; a peer will');
      }
    }
    await this.router.close();
    if (this.subscriber) await closeRedis(this.subscriber);
    await closeRedis(this.redis);
  }

  /** For /healthz: whether Redis answers a PING within `timeoutMs` (default 2000). */
  async health(timeoutMs = 2000): Promise<{ ok: boolean; detail?: string }> {
    if (this.redis.status !== 'ready') return { ok: false, detail: `redis connection is ${this.redis.status}` };
    const ping = this.redis.ping().then(() => ({ ok: true }));
    const late = new Promise<{ ok: boolean; detail: string }>((resolve) =>
      setTimeout(
        () => resolve({ ok: false, detail: `redis did not answer within ${timeoutMs} ms` }),
        timeoutMs,
      ).unref(),
    );
    return Promise.race([ping, late]).catch((err: unknown) => ({ ok: false, detail: String(err) }));
  }

  /** Events queued or running in the whole queue (all gateways and workers). */
  async depth(): Promise<number> {
    return Number((await this.redis.get(`${this.scripts.prefix}:depth`)) ?? 0);
  }

  /** Moves a (dead or leaving) worker's own-queue jobs to the shared queue, freeing its thread locks. */
  private async adoptJobsOf(workerId: string): Promise<void> {
    const queue = this.router.queueFor(workerId);
    const jobs = await queue.getJobs(['active', 'wait', 'delayed', 'prioritized']);
    const threads = new Set<string>();
    for (const job of jobs) {
      if (!job?.id || !job.data?.thread) continue;
      if ((await this.scripts.release(job.data.thread, job.id)) > 0) threads.add(job.data.thread);
    }
    for (const thread of threads) await this.router.add(thread, toJobId('h', randomUUID()));
    await this.router.drop(workerId);
    if (threads.size > 0)
      this.log.info({ fromWorker: workerId, threads: threads.size }, 'moved threads to the shared queue');
  }

  /** A drain job failed for good (a bug, Redis trouble, or its worker died twice): let the thread go on. */
  private async onDrainFailed(job: BullJob<DrainData> | undefined, err: Error): Promise<void> {
    if (!job?.id) return;
    try {
      if ((await job.getState()) !== 'failed') return;
      this.log.error({ err, thread: job.data.thread, bullJob: job.id }, 'drain job failed');
      if ((await this.scripts.release(job.data.thread, job.id)) > 0)
        await this.router.add(job.data.thread, toJobId('h', randomUUID()));
    } catch (e) {
      this.log.warn({ err: e }, 'could not recover after a failed drain job');
    }
  }
}
