import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.js';
import { threadKey } from '../../../src/domain/thread-key.js';
import type { Job } from '../../../src/ports/job-queue.js';
import { InProcessJobQueue } from '../../../src/queue/in-process-queue.js';
import type { DropReason } from '../../../src/queue/queue-events.js';
import { sleep, testMessage, waitFor } from '../../contract/messages.js';

const logger = createLogger({ level: 'silent' });

describe('InProcessJobQueue', () => {
  it('keeps going after a processor that throws synchronously', async () => {
    const queue = new InProcessJobQueue({ logger });
    const ran: string[] = [];
    await queue.process(((job: Job) => {
      ran.push(job.message.text);
      if (job.message.text === 'boom') throw new Error('boom');
      return Promise.resolve();
    }) as never);
    await queue.enqueue(testMessage({ thread: 't', text: 'boom' }));
    await queue.enqueue(testMessage({ thread: 't', text: 'next' }));
    await waitFor(() => ran.length === 2);
    expect(ran).toEqual(['boom', 'next']);
    await queue.close();
  });

  it('reports waiting jobs dropped at shutdown and refuses new ones politely', async () => {
    const dropped: Array<[string, DropReason]> = [];
    const queue = new InProcessJobQueue({
      logger,
      concurrency: 1,
      onDropped: (job, reason) => void dropped.push([job.message.text, reason]),
    });
    await queue.process(() => sleep(200));
    await queue.enqueue(testMessage({ thread: 'a', text: 'running' }));
    await queue.enqueue(testMessage({ thread: 'b', text: 'waiting-b' }));
    await queue.enqueue(testMessage({ thread: 'a', text: 'waiting-a' }));
    await queue.close(2000);
    expect(dropped.sort()).toEqual([
      ['waiting-a', 'shutdown'],
      ['waiting-b', 'shutdown'],
    ]);
    expect(await queue.enqueue(testMessage({ thread: 'c' }))).toMatchObject({
      accepted: false,
      reason: 'queue_full',
      message: expect.stringContaining('restarting'),
    });
  });

  it('holds jobs until process() is called and reports positions within the thread', async () => {
    const queue = new InProcessJobQueue({ logger });
    expect(await queue.enqueue(testMessage({ thread: 'p' }))).toMatchObject({ position: 0 });
    expect(await queue.enqueue(testMessage({ thread: 'p' }))).toMatchObject({ position: 1 });
    expect(await queue.enqueue(testMessage({ thread: 'other' }))).toMatchObject({ position: 0 });
    const ran: string[] = [];
    await sleep(50);
    expect(ran).toEqual([]);
    await queue.process(async (job) => void ran.push(job.threadKey));
    await waitFor(() => ran.length === 3);
    expect(ran.filter((k) => k === threadKey(testMessage({ thread: 'p' }).thread))).toHaveLength(2);
    await queue.close();
  });

  it('reports depth, waits and durations to the observer', async () => {
    const events: string[] = [];
    const queue = new InProcessJobQueue({
      logger,
      observer: {
        depth: (n) => events.push(`depth ${n}`),
        started: () => events.push('started'),
        finished: (_ms, outcome) => events.push(`finished ${outcome}`),
        parked: (n) => events.push(`parked ${n}`),
      },
    });
    await queue.process(async (job) => {
      if (job.message.text === 'fail') throw new Error('x');
    });
    await queue.enqueue(testMessage({ thread: 'o', text: 'fail' }));
    await waitFor(() => events.includes('finished error'));
    expect(events).toEqual(['depth 1', 'started', 'finished error', 'depth 0']);
    await queue.close();
  });
});
