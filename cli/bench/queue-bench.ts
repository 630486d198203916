import { randomUUID } from 'node:crypto';
import type { InboundMessage } from '../../src/domain/messages.js';
import { createLogger, type Logger } from '../../src/logger.js';
import type { JobProcessor, JobQueue } from '../../src/ports/job-queue.js';
import { InProcessJobQueue } from '../../src/queue/in-process-queue.js';
import type { QueueLimits } from '../../src/queue/limits.js';
import { BullMqJobQueue } from '../../adapters/redis/bullmq-queue.js';
import { closeRedis, createRedis, deleteKeysUnder } from '../../adapters/redis/connection.js';

export interface BenchQueueOptions {
  /** Redis for the BullMQ rows; without it they are skipped. */
  redisUrl?: string;
  /** Concurrent threads; each sends its next message when the previous one finished. */
  threads: number;
  /** Messages in total, spread evenly over the threads. */
  messages: number;
  out: (line: string) => void;
  /** Simulated direct-mode work per message (an async sleep). @defaultValue 50 */
  workMs?: number;
  /** Threads one worker runs at once. @defaultValue 4 */
  concurrency?: number;
  logger?: Logger;
}

export interface BenchRow {
  implementation: 'in-process' | 'bullmq';
  workers: number;
  messages: number;
  elapsedMs: number;
  messagesPerSecond: number;
  p50WaitMs: number;
  p95WaitMs: number;
}

interface Setup {
  producer: JobQueue;
  workers: JobQueue[];
  dispose(): Promise<void>;
}

const roomy: QueueLimits = {
  userMaxConcurrent: 1e9,
  userMaxPerMinute: 1e9,
  workspaceMaxConcurrent: 1e9,
  workspaceMaxPerMinute: 1e9,
  maxQueueLength: 1e9,
  busyRetryAfterMs: 1000,
};

const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** Drives `threads` closed-loop conversations through one queue setup and measures throughput and wait. */
async function runOnce(
  setup: Setup,
  o: Required<Pick<BenchQueueOptions, 'threads' | 'messages' | 'workMs'>>,
): Promise<Omit<BenchRow, 'implementation' | 'workers'>> {
  const waits: number[] = [];
  const pending = new Map<string, () => void>();
  const processor: JobProcessor = async (job) => {
    waits.push(Date.now() - job.enqueuedAtMs);
    await new Promise((r) => setTimeout(r, o.workMs));
    pending.get(job.id)?.();
  };
  for (const w of setup.workers) await w.process(processor);
  const perThread = Math.ceil(o.messages / o.threads);
  const run = `bench-${randomUUID().slice(0, 8)}`;
  const t0 = Date.now();
  let sent = 0;
  await Promise.all(
    Array.from({ length: o.threads }, async (_, t) => {
      for (let i = 0; i < perThread && sent < o.messages; i++) {
        sent += 1;
        const message: InboundMessage = {
          id: `${run}-${t}-${i}`,
          thread: { platform: 'cli', workspace: 'bench', channel: 'bench', thread: `${run}-${t}` },
          user: { id: `user-${t}` },
          text: '/run print(1)',
          attachments: [],
          receivedAtMs: Date.now(),
        };
        const done = new Promise<void>((resolve) => pending.set(message.id, resolve));
        const result = await setup.producer.enqueue(message);
        if (!result.accepted) throw new Error(`bench message refused: ${JSON.stringify(result)}`);
        await done;
        pending.delete(message.id);
      }
    }),
  );
  const elapsedMs = Date.now() - t0;
  const sorted = waits.sort((a, b) => a - b);
  return {
    messages: sent,
    elapsedMs,
    messagesPerSecond: (sent * 1000) / elapsedMs,
    p50WaitMs: percentile(sorted, 50),
    p95WaitMs: percentile(sorted, 95),
  };
}

function inProcess(workers: number, concurrency: number, logger: Logger): Setup {
  // One process cannot share its in-memory queue with another: "two workers" = twice the concurrency.
  const queue = new InProcessJobQueue({ logger, concurrency: concurrency * workers, limits: roomy });
  return { producer: queue, workers: [queue], dispose: () => queue.close(5000) };
}

function bullmq(workers: number, concurrency: number, redisUrl: string, logger: Logger): Setup {
  const keyPrefix = `bench-${randomUUID()}`;
  const common = { redisUrl, logger, keyPrefix, limits: roomy, concurrency };
  const producer = new BullMqJobQueue(common);
  const ws = Array.from({ length: workers }, (_, i) => new BullMqJobQueue({ ...common, workerId: `bench-${i + 1}` }));
  return {
    producer,
    workers: ws,
    async dispose() {
      await Promise.all([producer, ...ws].map((q) => q.close(5000)));
      const redis = createRedis(redisUrl, { logger, purpose: 'bench-cleanup' });
      await deleteKeysUnder(redis, keyPrefix);
      await closeRedis(redis);
    },
  };
}

/**
 * `threadlab bench queue`: sustained messages per second and p95 queue wait, in-process vs BullMQ,
 * with one worker and with two, printed side by side. BullMQ workers run in this process, each with
 * its own Redis connections, so the figures show queue overhead, not extra CPU.
 */
export async function benchQueue(options: BenchQueueOptions): Promise<BenchRow[]> {
  const logger = options.logger ?? createLogger({ level: 'warn' });
  const workMs = options.workMs ?? 50;
  const concurrency = options.concurrency ?? 4;
  const params = { threads: options.threads, messages: options.messages, workMs };
  const out = options.out;
  out(
    `queue bench: ${options.messages} messages over ${options.threads} concurrent threads; each thread sends its next message when the previous one finished.`,
  );
  out(
    `processor: a ${workMs} ms async sleep standing in for direct-mode work (/run without the LLM); concurrency ${concurrency} threads per worker.`,
  );
  out(
    `in-process "2 workers" = one process with concurrency ${2 * concurrency}; BullMQ workers are separate Worker instances in this process.`,
  );
  out('');
  out(pad(['implementation', 'workers', 'msg/s', 'p50 wait ms', 'p95 wait ms', 'elapsed s']));
  const rows: BenchRow[] = [];
  const plans: Array<[BenchRow['implementation'], number]> = [
    ['in-process', 1],
    ['in-process', 2],
    ['bullmq', 1],
    ['bullmq', 2],
  ];
  for (const [implementation, workers] of plans) {
    if (implementation === 'bullmq' && !options.redisUrl) {
      out(pad([implementation, String(workers), 'skipped: set REDIS_URL']));
      continue;
    }
    const setup =
      implementation === 'bullmq'
        ? bullmq(workers, concurrency, options.redisUrl!, logger)
        : inProcess(workers, concurrency, logger);
    try {
      const row: BenchRow = { implementation, workers, ...(await runOnce(setup, params)) };
      rows.push(row);
      out(
        pad([
          implementation,
          String(workers),
          row.messagesPerSecond.toFixed(1),
          String(Math.round(row.p50WaitMs)),
          String(Math.round(row.p95WaitMs)),
          (row.elapsedMs / 1000).toFixed(2),
        ]),
      );
    } finally {
      await setup.dispose();
    }
  }
  return rows;
}

function pad(cells: string[]): string {
  const widths = [16, 8, 10, 12, 12, 10];
  return cells
    .map((c, i) => c.padEnd(widths[i] ?? 10))
    .join('')
    .trimEnd();
}
