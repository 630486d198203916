import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BullMqJobQueue } from '../../../adapters/redis/bullmq-queue.js';
import { createLogger } from '../../../src/logger.js';
import { testMessage, waitFor } from '../../contract/messages.js';
import { deleteKeys } from './redis-server.js';
import { recorded, spawnWorker, useWorkerHarness } from './worker-processes.js';

const logger = createLogger({ level: 'silent' });
const h = useWorkerHarness();

async function setup(): Promise<{ keyPrefix: string; gateway: BullMqJobQueue }> {
  const keyPrefix = `test-${randomUUID()}`;
  const gateway = new BullMqJobQueue({ redisUrl: h.server.url, logger, keyPrefix });
  h.cleanups.push(async () => {
    await gateway.close(1000);
    await deleteKeys(h.server.url, keyPrefix);
  });
  h.workers.push(
    ...(await Promise.all(
      ['w1', 'w2'].map((id) => spawnWorker({ redisUrl: h.server.url, keyPrefix, id, env: { CONCURRENCY: '2' } })),
    )),
  );
  return { keyPrefix, gateway };
}

describe('BullMqJobQueue affinity', () => {
  it('keeps each thread on the worker that ran it first', async () => {
    const { keyPrefix, gateway } = await setup();
    const threads = Array.from({ length: 8 }, (_, t) => `aff${t}`);
    await Promise.all(
      threads.map(async (thread) => {
        for (let i = 0; i < 5; i++) {
          const message = testMessage({ thread, text: JSON.stringify({ sleepMs: 30 }) });
          await gateway.enqueue(message);
          await waitFor(
            async () => (await recorded(h.redis, keyPrefix, 'done')).some((d) => d.id === message.id),
            15_000,
            'a run',
          );
        }
      }),
    );
    const done = await recorded(h.redis, keyPrefix, 'done');
    expect(done).toHaveLength(40);
    const workersOf = new Map<string, Set<string>>();
    for (const d of done) workersOf.set(d.thread, new Set([...(workersOf.get(d.thread) ?? []), d.worker]));
    for (const set of workersOf.values()) expect(set.size).toBe(1);
    expect(new Set(done.map((d) => d.worker)).size).toBe(2); // both workers took threads
  }, 90_000);

  it('moves a SIGKILLed owner’s thread to the other worker, retrying its interrupted run once', async () => {
    const { keyPrefix, gateway } = await setup();
    const warm = testMessage({ thread: 'owned', text: '{}' });
    await gateway.enqueue(warm);
    await waitFor(async () => (await recorded(h.redis, keyPrefix, 'done')).length === 1, 10_000, 'warm-up run');
    const owner = (await recorded(h.redis, keyPrefix, 'done'))[0]!.worker;
    const long = testMessage({ thread: 'owned', text: JSON.stringify({ sleepMs: 4000 }) });
    await gateway.enqueue(long);
    await waitFor(
      async () => (await recorded(h.redis, keyPrefix, 'started')).length === 2,
      10_000,
      'long run to start',
    );
    expect((await recorded(h.redis, keyPrefix, 'started'))[1]!.worker).toBe(owner); // routed to its own queue
    const victim = h.workers.find((w) => w.id === owner)!;
    const killedAtMs = Date.now();
    await victim.kill();
    const after = testMessage({ thread: 'owned', text: '{}' });
    await gateway.enqueue(after);
    await waitFor(
      async () => (await recorded(h.redis, keyPrefix, 'done')).length === 3,
      90_000, // a safety net for a hung test: the sweep takes 10-13 s on a quiet machine
      'runs on the survivor',
    );
    const done = (await recorded(h.redis, keyPrefix, 'done')).slice(1);
    const survivor = h.workers.find((w) => w !== victim)!.id;
    expect(done.map((d) => [d.id, d.worker, d.attempt])).toEqual([
      [long.id, survivor, 2],
      [after.id, survivor, 1],
    ]);
    // How soon depends on the heartbeat's timers and the machine's load, so it is logged, not asserted.
    process.stderr.write(
      `affinity failover: run restarted ${done[0]!.atMs - 4000 - killedAtMs} ms (+4 s run) after SIGKILL\n`,
    );
    expect(await gateway.depth()).toBe(0);
  }, 150_000);
});
