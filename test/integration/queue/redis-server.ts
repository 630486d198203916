import { startPrivateRedis, type PrivateRedis } from '../../support/redis-server.js';
import { Redis } from 'ioredis';

/** A private, throw-away redis-server on a free loopback port (no persistence). */
export interface RedisServer {
  url: string;
  port: number;
  /** Kills the server and starts a fresh, empty one on the same port. */
  restart(options?: { downMs?: number }): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedisServer(): Promise<RedisServer> {
  let server: PrivateRedis = await startPrivateRedis();
  const { port, url } = server;
  const kill = async (): Promise<void> => {
    const child = server.process;
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  };
  return {
    url,
    port,
    async restart(options = {}) {
      await kill();
      await new Promise((r) => setTimeout(r, options.downMs ?? 500));
      server = await startPrivateRedis(port);
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
