import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { testRedis } from './redis-server.js';

const script = fileURLToPath(new URL('./worker-process.ts', import.meta.url));

export interface WorkerProcess {
  id: string;
  child: ChildProcess;
  /** SIGTERM and wait for the exit (graceful close). */
  stop(): Promise<void>;
  kill(): Promise<void>;
}

/** Spawns worker-process.ts and resolves once it prints "ready". */
export async function spawnWorker(options: {
  redisUrl: string;
  keyPrefix: string;
  id: string;
  env?: Record<string, string>;
}): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: fileURLToPath(new URL('../../..', import.meta.url)),
    env: {
      ...process.env,
      REDIS_URL: options.redisUrl,
      KEY_PREFIX: options.keyPrefix,
      WORKER_ID: options.id,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker ${options.id} exited early with ${code}`)));
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    id: options.id,
    child,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface Recorded {
  worker: string;
  id: string;
  thread: string;
  attempt: number;
  text: string;
  atMs: number;
  reason?: string;
  variablesReset?: boolean;
}

/** Reads what the worker processes recorded for one event kind (started, done, aborted, dropped). */
export async function recorded(redis: Redis, keyPrefix: string, event: string): Promise<Recorded[]> {
  return (await redis.lrange(`${keyPrefix}:rec:${event}`, 0, -1)).map((line) => JSON.parse(line) as Recorded);
}

/** What a test file with worker processes shares: a Redis, a client, its workers and clean-ups. */
export interface WorkerHarness {
  server: Awaited<ReturnType<typeof testRedis>>;
  redis: Redis;
  workers: WorkerProcess[];
  cleanups: Array<() => Promise<void>>;
}

/**
 * Registers the hooks every worker-process test file needs: a Redis before all tests, killing the
 * workers and running the clean-ups after each, closing Redis after all.
 */
export function useWorkerHarness(): WorkerHarness {
  const h = { workers: [], cleanups: [] } as unknown as WorkerHarness;
  beforeAll(async () => {
    h.server = await testRedis();
    h.redis = new Redis(h.server.url);
  });
  afterEach(async () => {
    await Promise.all(h.workers.splice(0).map((w) => w.kill()));
    for (const c of h.cleanups.splice(0)) await c();
  });
  afterAll(async () => {
    h.redis?.disconnect();
    await h.server?.stop();
  });
  return h;
}
