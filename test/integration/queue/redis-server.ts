import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

/** A private, throw-away redis-server on a free loopback port (no persistence). */
export interface RedisServer {
  url: string;
  port: number;
  /** Kills the server and starts a fresh, empty one on the same port. */
  restart(options?: { downMs?: number }): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function waitReady(url: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {});
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      return;
    } catch (err) {
      probe.disconnect();
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const launch = async (): Promise<void> => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    await waitReady(url);
  };
  const kill = async (): Promise<void> => {
    const c = child;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  };
  await launch();
  return {
    url,
    port,
    async restart(options = {}) {
      await kill();
      await new Promise((r) => setTimeout(r, options.downMs ?? 500));
      await launch();
    },
    stop: kill,
  };
}

/** THREADLAB_TEST_REDIS_URL when the global setup provides one, else a private server. */
export async function testRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const shared = process.env.THREADLAB_TEST_REDIS_URL;
  if (shared) return { url: shared, stop: async () => {} };
  return startRedisServer();
}

/** Deletes every key under `prefix` (each test uses its own `test-<uuid>` prefix). */
export async function deleteKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
