import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Schedule } from '../../../src/domain/schedule.js';
import { ScheduleRetention } from '../../../src/governance/retention/retention-schedules.js';
import { createLogger } from '../../../src/logger.js';
import { InProcessScheduler } from '../../../src/schedules/in-process-scheduler.js';
import { ManualClock } from './manual-clock.js';

const logger = createLogger({ destination: new Writable({ write: (_c, _e, done) => done() }) });

const schedule = (id: string, thread: string): Schedule => ({
  id,
  threadKey: `web:local:web:${thread}`,
  thread: { platform: 'web', workspace: 'local', channel: 'web', thread },
  creator: { id: 'u1', name: 'Ann' },
  when: { kind: 'every', everyMs: 3_600_000 },
  task: { kind: 'ask', text: 'numbers?' },
  createdAtMs: 0,
});

describe('threadlab purge and schedules', () => {
  it('removes a thread’s schedules, and those of threads idle since the cutoff', async () => {
    const scheduler = new InProcessScheduler({ logger, clock: new ManualClock(0) });
    for (const [id, thread] of [
      ['a', 't1'],
      ['b', 't1'],
      ['c', 't2'],
      ['d', 't3'],
    ] as const)
      await scheduler.add(schedule(id, thread));
    const retention = new ScheduleRetention({
      scheduler,
      idleKeys: async () => ['web:local:web:t2', 'web:local:web:t9'],
    });
    expect(await retention.purgeThread('web:local:web:t1')).toEqual([
      { what: 'schedules', thread: 'web:local:web:t1', note: '2 schedule(s)' },
    ]);
    expect(await retention.purgeThread('web:local:web:t1')).toEqual([]);
    expect(await retention.purgeIdle(0)).toEqual([
      { what: 'schedules', thread: 'web:local:web:t2', note: '1 schedule(s)' },
    ]);
    expect((await scheduler.list(10)).map((s) => s.id)).toEqual(['d']);
    await scheduler.close();
  });
});
