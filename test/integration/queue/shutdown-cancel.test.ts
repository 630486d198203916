import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BullMqJobQueue } from '../../../adapters/redis/bullmq-queue.js';
import { threadKey } from '../../../src/domain/thread-key.js';
import { createLogger } from '../../../src/logger.js';
import type { Job } from '../../../src/ports/job-queue.js';
import { testMessage, waitFor } from '../../contract/messages.js';
import { deleteKeys } from './redis-server.js';
import { recorded, spawnWorker, useWorkerHarness } from './worker-processes.js';

const logger = createLogger({ level: 'silent' });
/** The BullMQ job lock of the hand-back test's workers, in ms (the default is 10 s). */
const LOCK_MS = 30_000;
const h = useWorkerHarness();

async function producerFor(keyPrefix: string, onDropped?: (job: Job) => void): Promise<BullMqJobQueue> {
  const producer = new BullMqJobQueue({ redisUrl: h.server.url, logger, keyPrefix, onDropped });
  h.cleanups.push(async () => {
    await producer.close(1000);
    await deleteKeys(h.server.url, keyPrefix);
  });
  return producer;
}

describe('BullMqJobQueue shutdown and cancel across processes', () => {
  it('a worker stopped with SIGTERM hands its run back at the deadline and another worker takes it at once', async () => {
    const keyPrefix = `test-${randomUUID()}`;
    const producer = await producerFor(keyPrefix);
    // A job lock far longer than the hand-back needs: the stalled-job check cannot move the run before it expires.
    const env = { CLOSE_TIMEOUT_MS: '300', LOCK_DURATION_MS: String(LOCK_MS) };
    h.workers.push(
      ...(await Promise.all(['a', 'b'].map((id) => spawnWorker({ redisUrl: h.server.url, keyPrefix, id, env })))),
    );
    const long = testMessage({ thread: 'handback', text: JSON.stringify({ sleepMs: 6000 }) });
    await producer.enqueue(long);
    await waitFor(async () => (await recorded(h.redis, keyPrefix, 'started')).length === 1, 10_000, 'run to start');
    const first = (await recorded(h.redis, keyPrefix, 'started'))[0]!;
    const leavingWorker = h.workers.find((w) => w.id === first.worker)!;
    const staying = h.workers.find((w) => w !== leavingWorker)!;
    const stoppedAtMs = Date.now();
    await leavingWorker.stop();
    expect(leavingWorker.child.exitCode).toBe(0);
    await waitFor(
      async () => (await recorded(h.redis, keyPrefix, 'started')).length === 2,
      LOCK_MS,
      'run to restart elsewhere',
    );
    const restarted = (await recorded(h.redis, keyPrefix, 'started'))[1]!;
    expect(restarted).toMatchObject({ id: long.id, worker: staying.id, attempt: 2 });
    // Handed back at once, not left to the stalled-job check, which waits for the lock the test set to expire.
    expect(restarted.atMs - stoppedAtMs).toBeLessThan(LOCK_MS);
    expect(await recorded(h.redis, keyPrefix, 'aborted')).toMatchObject([{ id: long.id, worker: leavingWorker.id }]);
    await waitFor(async () => (await recorded(h.redis, keyPrefix, 'done')).length === 1, LOCK_MS, 'run to finish');
    expect((await recorded(h.redis, keyPrefix, 'done'))[0]).toMatchObject({
      id: long.id,
      worker: staying.id,
      variablesReset: true,
    });
  }, 120_000); // room for the waits, each at most LOCK_MS

  it('cancel from a gateway aborts the run in the worker process and reports the waiting events', async () => {
    const keyPrefix = `test-${randomUUID()}`;
    const dropped: Job[] = [];
    const gateway = await producerFor(keyPrefix, (job) => void dropped.push(job));
    h.workers.push(await spawnWorker({ redisUrl: h.server.url, keyPrefix, id: 'w1' }));
    const running = testMessage({ thread: 'stop-me', text: JSON.stringify({ sleepMs: 20_000 }) });
    const waiting = testMessage({ thread: 'stop-me', text: JSON.stringify({ sleepMs: 10 }) });
    const other = testMessage({ thread: 'keep-me', text: JSON.stringify({ sleepMs: 10 }) });
    await gateway.enqueue(running);
    await waitFor(async () => (await recorded(h.redis, keyPrefix, 'started')).length === 1, 10_000, 'run to start');
    await gateway.enqueue(waiting);
    expect(await gateway.cancel(threadKey(running.thread))).toBe(true);
    await gateway.enqueue(other);
    await waitFor(
      async () => (await recorded(h.redis, keyPrefix, 'aborted')).length === 1,
      5000,
      'abort in the worker',
    );
    await waitFor(async () => (await recorded(h.redis, keyPrefix, 'done')).length === 1, 5000, 'other thread to run');
    expect((await recorded(h.redis, keyPrefix, 'done')).map((d) => d.id)).toEqual([other.id]);
    expect(dropped.map((j) => j.id)).toEqual([waiting.id]);
    await waitFor(async () => (await gateway.depth()) === 0, 5000, 'depth 0');
    expect(await gateway.cancel(threadKey(running.thread))).toBe(false);
  }, 60_000);
});
