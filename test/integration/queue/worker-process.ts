/**
 * A worker process for the queue integration tests: `node --import tsx worker-process.ts`.
 * Env: REDIS_URL, KEY_PREFIX, WORKER_ID, CONCURRENCY, LOCK_DURATION_MS, STALLED_INTERVAL_MS.
 * Message text is JSON { sleepMs }. Writes what happens to Redis lists `${KEY_PREFIX}:rec:<event>`
 * (started, done, dropped) and prints "ready" once it takes jobs.
 */
import { Redis } from 'ioredis';
import { BullMqJobQueue } from '../../../adapters/redis/bullmq-queue.js';
import { createLogger } from '../../../src/logger.js';

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
};
const url = env('REDIS_URL');
const prefix = env('KEY_PREFIX');
const workerId = env('WORKER_ID');
const logger = createLogger({ level: env('LOG_LEVEL', 'warn') }).child({ worker: workerId });
const recorder = new Redis(url, { maxRetriesPerRequest: null, retryStrategy: (t) => Math.min(200 * t, 2000) });
recorder.on('error', () => {});
const record = (event: string, data: object): Promise<number> =>
  recorder.rpush(`${prefix}:rec:${event}`, JSON.stringify({ worker: workerId, atMs: Date.now(), ...data }));

const optional = (name: string): number | undefined => (process.env[name] ? Number(process.env[name]) : undefined);
const queue = new BullMqJobQueue({
  redisUrl: url,
  logger,
  keyPrefix: prefix,
  workerId,
  concurrency: Number(env('CONCURRENCY', '4')),
  lockDurationMs: optional('LOCK_DURATION_MS'),
  stalledIntervalMs: optional('STALLED_INTERVAL_MS'),
  onDropped: (job, reason) => void record('dropped', { id: job.id, thread: job.threadKey, reason }),
});

await queue.process(async (job, { signal }) => {
  const { sleepMs = 0 } = JSON.parse(job.message.text || '{}') as { sleepMs?: number };
  const base = { id: job.id, thread: job.threadKey, attempt: job.attempt, text: job.message.text };
  await record('started', base);
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, sleepMs);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
  if (signal.aborted) return void (await record('aborted', base));
  // The point where a real processor would reply; attempt > 1 means "variables were reset".
  await record('done', { ...base, variablesReset: job.attempt > 1 });
});
process.stdout.write('ready\n');

process.on('SIGTERM', () => {
  void queue.close(Number(env('CLOSE_TIMEOUT_MS', '5000'))).then(async () => {
    await recorder.quit();
    process.exit(0);
  });
});
