import type { Intent } from '../../src/domain/intent.js';
import { afterEach, describe, expect, it } from 'vitest';
import { threadKey } from '../../src/domain/thread-key.js';
import type { Job, JobQueue } from '../../src/ports/job-queue.js';
import { DEFAULT_LIMITS, type QueueLimits } from '../../src/queue/limits.js';
import type { DropReason, OnDropped } from '../../src/queue/queue-events.js';
import { sleep, testMessage, waitFor } from './messages.js';

export interface QueueUnderTest {
  queue: JobQueue;
  /** Closes the queue and removes everything it stored. */
  dispose(): Promise<void>;
}

export interface JobQueueFactoryOptions {
  limits: QueueLimits;
  onDropped: OnDropped;
  concurrency: number;
  /** Jobs parked at once (THREADLAB_MAX_PARKED); unset: the queue's default. */
  maxParked?: number;
}

export type JobQueueFactory = (options: JobQueueFactoryOptions) => Promise<QueueUnderTest>;

const roomy: QueueLimits = {
  ...DEFAULT_LIMITS,
  userMaxConcurrent: 1000,
  userMaxPerMinute: 1000,
  workspaceMaxConcurrent: 1000,
  workspaceMaxPerMinute: 1000,
  maxQueueLength: 1000,
};

/** The behaviour every JobQueue must have; registers a describe block named after the implementation. */
export function jobQueueContract(name: string, factory: JobQueueFactory): void {
  describe(`JobQueue contract: ${name}`, () => {
    const made: QueueUnderTest[] = [];
    const dropped: Array<{ job: Job; reason: DropReason }> = [];
    const make = async (overrides: Partial<JobQueueFactoryOptions> = {}): Promise<JobQueue> => {
      const qut = await factory({
        limits: roomy,
        concurrency: 4,
        onDropped: (job, reason) => void dropped.push({ job, reason }),
        ...overrides,
      });
      made.push(qut);
      return qut.queue;
    };
    afterEach(async () => {
      await Promise.all(made.splice(0).map((q) => q.dispose()));
      dropped.length = 0;
    });

    it("carries the message's intent on its job, as given; a job enqueued without one has none", async () => {
      const queue = await make();
      const jobs: Job[] = [];
      await queue.process(async (job) => void jobs.push(job));
      const intent = { kind: 'run', language: 'python', code: 'print("ü ```")' } as const;
      // Another message's blocks and an attached script: their intents and the message's source ride along too.
      const cells: Intent = { kind: 'runCells', cells: [{ language: 'r', code: 'x <- 1' }], skipped: ['json'] };
      const script: Intent = { kind: 'runScript', attachment: 'F1' };
      const source = { messageId: 'm-9', authorId: 'U-AUTHOR' };
      await queue.enqueue(testMessage({ thread: 'intent', text: 'a' }), { intent });
      await queue.enqueue(testMessage({ thread: 'intent', text: 'b' }));
      await queue.enqueue({ ...testMessage({ thread: 'intent', text: 'c' }), source }, { intent: cells });
      await queue.enqueue(testMessage({ thread: 'intent', text: 'd' }), { intent: script });
      await waitFor(() => jobs.length === 4, 10_000, 'four jobs');
      expect(jobs.map((j) => [j.message.text, j.intent])).toEqual([
        ['a', intent],
        ['b', undefined],
        ['c', cells],
        ['d', script],
      ]);
      expect(jobs[2]!.message.source).toEqual(source);
    });

    it('runs one thread in arrival order, one at a time, and threads concurrently', async () => {
      const queue = await make({ concurrency: 3 });
      const seen = new Map<string, number[]>();
      const active = new Map<string, number>();
      let concurrent = 0;
      let maxConcurrent = 0;
      let maxPerThread = 0;
      await queue.process(async (job) => {
        const now = (active.get(job.threadKey) ?? 0) + 1;
        active.set(job.threadKey, now);
        maxPerThread = Math.max(maxPerThread, now);
        maxConcurrent = Math.max(maxConcurrent, ++concurrent);
        await sleep(15);
        seen.set(job.threadKey, [...(seen.get(job.threadKey) ?? []), Number(job.message.text)]);
        active.set(job.threadKey, now - 1);
        concurrent -= 1;
      });
      for (let i = 0; i < 6; i++) {
        for (const t of ['a', 'b', 'c']) {
          const result = await queue.enqueue(testMessage({ thread: t, text: String(i) }));
          expect(result.accepted).toBe(true);
        }
      }
      await waitFor(() => [...seen.values()].reduce((n, l) => n + l.length, 0) === 18, 20_000, '18 jobs');
      expect(seen.size).toBe(3);
      for (const list of seen.values()) expect(list).toEqual([0, 1, 2, 3, 4, 5]);
      expect(maxPerThread).toBe(1);
      expect(maxConcurrent).toBeGreaterThan(1);
      expect(maxConcurrent).toBeLessThanOrEqual(3);
    });

    it('gives the job its thread key, attempt 1 and the enqueue time', async () => {
      const queue = await make();
      const jobs: Job[] = [];
      await queue.process(async (job) => void jobs.push(job));
      const message = testMessage({ thread: 'meta', text: 'hi' });
      const before = Date.now();
      const result = await queue.enqueue(message);
      expect(result).toMatchObject({ accepted: true, position: 0 });
      await waitFor(() => jobs.length === 1);
      expect(jobs[0]).toMatchObject({ attempt: 1, message: { id: message.id, text: 'hi' } });
      expect(jobs[0]!.threadKey).toContain('meta');
      expect(jobs[0]!.enqueuedAtMs).toBeGreaterThanOrEqual(before - 5);
    });

    it('runs a redelivered event once', async () => {
      const queue = await make();
      let runs = 0;
      await queue.process(async () => void (runs += 1));
      const message = testMessage({ thread: 'dup' });
      expect((await queue.enqueue(message)).accepted).toBe(true);
      expect(await queue.enqueue({ ...message })).toEqual({ accepted: false, reason: 'duplicate', jobId: message.id });
      await waitFor(() => runs === 1);
      await sleep(200);
      expect(await queue.enqueue({ ...message })).toMatchObject({ reason: 'duplicate' });
      await sleep(200);
      expect(runs).toBe(1);
    });

    it('cancel aborts the running job and reports the dropped waiting ones', async () => {
      const queue = await make();
      const started: string[] = [];
      let abortReason: unknown;
      await queue.process(async (job, { signal }) => {
        started.push(job.id);
        await new Promise<void>((resolve) => {
          if (signal.aborted) return resolve();
          signal.addEventListener('abort', () => resolve(), { once: true });
          setTimeout(resolve, 10_000);
        });
        if (signal.aborted) abortReason = signal.reason;
      });
      const first = testMessage({ thread: 'stop' });
      const second = testMessage({ thread: 'stop' });
      const third = testMessage({ thread: 'stop' });
      for (const m of [first, second, third]) await queue.enqueue(m);
      await waitFor(() => started.length === 1, 10_000, 'first job to start');
      expect(await queue.cancel(threadKey(first.thread))).toBe(true);
      await waitFor(() => abortReason !== undefined && dropped.length === 2, 10_000, 'abort and drops');
      expect(dropped.map((d) => [d.job.id, d.reason])).toEqual([
        [second.id, 'cancelled'],
        [third.id, 'cancelled'],
      ]);
      await sleep(200);
      expect(started).toEqual([first.id]);
      expect(await queue.cancel(threadKey(testMessage({ thread: 'nothing-here' }).thread))).toBe(false);
    });

    it('says who started the running job (where Stop is decided), and nobody once the thread is idle', async () => {
      const queue = await make();
      const releases: (() => void)[] = [];
      const started: string[] = [];
      await queue.process(async (job) => {
        started.push(job.id);
        await new Promise<void>((r) => releases.push(r));
      });
      const first = testMessage({ thread: 'starter', user: 'ada' });
      const second = testMessage({ thread: 'starter', user: 'bob' });
      const key = threadKey(first.thread);
      expect(await queue.starter(key)).toBeUndefined();
      await queue.enqueue(first);
      await queue.enqueue(second);
      await waitFor(() => started.length === 1, 10_000, 'first job to start');
      expect((await queue.starter(key))?.id).toBe('ada');
      releases[0]!();
      await waitFor(() => started.length === 2, 10_000, 'second job to start');
      expect((await queue.starter(key))?.id).toBe('bob');
      releases[1]!();
      await waitFor(async () => (await queue.starter(key)) === undefined, 10_000, 'the thread to be idle');
    });

    it('answers politely when a user exceeds the per-minute limit', async () => {
      const queue = await make({ limits: { ...roomy, userMaxPerMinute: 2 } });
      await queue.process(async () => {});
      expect((await queue.enqueue(testMessage({ thread: 'r1', user: 'eve' }))).accepted).toBe(true);
      expect((await queue.enqueue(testMessage({ thread: 'r2', user: 'eve' }))).accepted).toBe(true);
      const refused = await queue.enqueue(testMessage({ thread: 'r3', user: 'eve' }));
      expect(refused).toMatchObject({ accepted: false, reason: 'rate_limited' });
      if (refused.accepted || refused.reason === 'duplicate') throw new Error('expected a refusal');
      expect(refused.retryAfterMs).toBeGreaterThan(50_000);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(60_000);
      expect(refused.message).toMatch(/try again in about (59|60) seconds/);
      expect((await queue.enqueue(testMessage({ thread: 'r3', user: 'bob' }))).accepted).toBe(true);
    });

    it('charges schedule firings to their workspace’s own bound, never to their creator', async () => {
      const queue = await make({ limits: { ...roomy, userMaxPerMinute: 2, scheduleFiringsPerMinute: 3 } });
      await queue.process(async () => {});
      const fire = (n: number) =>
        queue.enqueue(testMessage({ thread: `f${n}`, user: 'eve' }), {
          origin: { kind: 'schedule', scheduleId: `sch-${n}`, label: 'every 1s' },
        });
      for (let n = 1; n <= 3; n++) expect((await fire(n)).accepted).toBe(true);
      expect(await fire(4)).toMatchObject({ accepted: false, reason: 'rate_limited' });
      // Eve's own two requests of this minute are untouched by her schedules' firings.
      expect((await queue.enqueue(testMessage({ thread: 'e1', user: 'eve' }))).accepted).toBe(true);
      expect((await queue.enqueue(testMessage({ thread: 'e2', user: 'eve' }))).accepted).toBe(true);
      expect(await queue.enqueue(testMessage({ thread: 'e3', user: 'eve' }))).toMatchObject({ accepted: false });
    });

    it('limits concurrent jobs per user', async () => {
      const queue = await make({ limits: { ...roomy, userMaxConcurrent: 1 } });
      expect((await queue.enqueue(testMessage({ thread: 'x1', user: 'sam' }))).accepted).toBe(true);
      expect(await queue.enqueue(testMessage({ thread: 'x2', user: 'sam' }))).toMatchObject({
        accepted: false,
        reason: 'rate_limited',
        message: expect.stringContaining('in progress'),
      });
      let runs = 0;
      await queue.process(async () => void (runs += 1));
      await waitFor(() => runs === 1);
      await waitFor(
        async () => (await queue.enqueue(testMessage({ thread: 'x3', user: 'sam' }))).accepted,
        5000,
        'slot freed',
      );
    });

    it('refuses with queue_full past the length cap', async () => {
      const queue = await make({ limits: { ...roomy, maxQueueLength: 2 } });
      await queue.enqueue(testMessage({ thread: 'q1' }));
      await queue.enqueue(testMessage({ thread: 'q2' }));
      const refused = await queue.enqueue(testMessage({ thread: 'q3' }));
      expect(refused).toMatchObject({
        accepted: false,
        reason: 'queue_full',
        message: expect.stringMatching(/try again/),
      });
    });

    it('close waits for a running job, and aborts it at the deadline', async () => {
      const queue = await make();
      let finished = 0;
      let aborted = 0;
      await queue.process(async (job, { signal }) => {
        const ms = Number(job.message.text);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
        });
        if (signal.aborted) aborted += 1;
        else finished += 1;
      });
      await queue.enqueue(testMessage({ thread: 'c1', text: '300' }));
      await queue.enqueue(testMessage({ thread: 'c2', text: '20000' }));
      await sleep(150);
      const t0 = Date.now();
      await queue.close(1500);
      expect(Date.now() - t0).toBeLessThan(8000);
      expect(finished).toBe(1);
      expect(aborted).toBe(1);
    });
  });
}
