import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BullMqJobQueue } from '../../../adapters/redis/bullmq-queue.js';
import { createLogger } from '../../../src/logger.js';
import { testMessage, waitFor } from '../../contract/messages.js';
import { startRedisServer, type RedisServer } from './redis-server.js';
import { recorded, spawnWorker, type WorkerProcess } from './worker-processes.js';

// This test restarts Redis, so it always uses a private server, never the shared one.
const logger = createLogger({ level: 'silent' });
let server: RedisServer;
let redis: Redis;
let worker: WorkerProcess | undefined;
let producer: BullMqJobQueue | undefined;

beforeAll(async () => {
  server = await startRedisServer();
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
  redis.on('error', () => {});
});
afterAll(async () => {
  await worker?.kill();
  await producer?.close(1000);
  redis?.disconnect();
  await server?.stop();
});

describe('BullMqJobQueue across a Redis restart', () => {
  it('workers and gateways reconnect after Redis restarts while idle and carry on', async () => {
    const keyPrefix = `test-${randomUUID()}`;
    producer = new BullMqJobQueue({ redisUrl: server.url, logger, keyPrefix });
    worker = await spawnWorker({ redisUrl: server.url, keyPrefix, id: 'w1', env: { LOG_LEVEL: 'error' } });
    expect((await producer.enqueue(testMessage({ thread: 'r', text: '{}' }))).accepted).toBe(true);
    await waitFor(async () => (await recorded(redis, keyPrefix, 'done')).length === 1, 10_000, 'first run');

    await new Promise((r) => setTimeout(r, 500)); // let the job's completion land: restart while idle
    expect(await producer.health()).toEqual({ ok: true });
    const restarting = server.restart({ downMs: 1500 });
    await waitFor(async () => !(await producer!.health(300)).ok, 3000, 'health to report Redis down');
    await restarting;
    expect(await redis.llen(`${keyPrefix}:rec:done`)).toBe(0); // a fresh, empty Redis

    const after = testMessage({ thread: 'r', text: '{}' });
    expect((await producer.enqueue(after)).accepted).toBe(true);
    await waitFor(async () => (await recorded(redis, keyPrefix, 'done')).length === 1, 30_000, 'run after restart');
    expect((await recorded(redis, keyPrefix, 'done'))[0]).toMatchObject({ id: after.id, worker: 'w1' });
    expect(worker.child.exitCode).toBeNull();
  }, 60_000);
});
