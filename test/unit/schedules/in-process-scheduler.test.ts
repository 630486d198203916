import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Schedule } from '../../../src/domain/schedule.js';
import { createLogger } from '../../../src/logger.js';
import type { ScheduleFiring } from '../../../src/ports/scheduler.js';
import { InProcessScheduler } from '../../../src/schedules/in-process-scheduler.js';
import { ManualClock } from './manual-clock.js';

const logger = createLogger({ destination: new Writable({ write: (_c, _e, done) => done() }) });

function schedule(id: string, when: Schedule['when'], createdAtMs: number): Schedule {
  return {
    id,
    threadKey: `web:local:web:${id}`,
    thread: { platform: 'web', workspace: 'local', channel: 'web', thread: id },
    creator: { id: 'u1' },
    when,
    task: { kind: 'rerun' },
    createdAtMs,
  };
}

describe('InProcessScheduler (test clock)', () => {
  it('fires a daily schedule at its wall-clock time in its zone, once a day', async () => {
    const clock = new ManualClock(Date.parse('2026-03-10T06:00:00Z'));
    const scheduler = new InProcessScheduler({ logger, clock });
    const fired: ScheduleFiring[] = [];
    await scheduler.start(async (f) => void fired.push(f));
    const when = { kind: 'at', hour: 9, minute: 0, days: [0, 1, 2, 3, 4, 5, 6], timeZone: 'Europe/Paris' } as const;
    await scheduler.add(schedule('a', when, clock.now()));
    await clock.advance(60 * 60_000); // 07:00Z = 08:00 Paris
    expect(fired).toHaveLength(0);
    await clock.advance(60 * 60_000); // 08:00Z = 09:00 Paris
    expect(fired.map((f) => new Date(f.dueAtMs).toISOString())).toEqual(['2026-03-10T08:00:00.000Z']);
    await clock.advance(3 * 86_400_000);
    expect(fired).toHaveLength(4);
    expect(new Date(fired[3]!.dueAtMs).toISOString()).toBe('2026-03-13T08:00:00.000Z');
    await scheduler.close();
  });

  it('fires an interval from its creation, stops when removed, and lists oldest first', async () => {
    const clock = new ManualClock(Date.parse('2026-03-10T00:00:00Z'));
    const scheduler = new InProcessScheduler({ logger, clock });
    const fired: string[] = [];
    await scheduler.start(async (f) => void fired.push(f.schedule.id));
    await scheduler.add(schedule('b', { kind: 'every', everyMs: 30 * 60_000 }, clock.now()));
    await clock.advance(10 * 60_000);
    await scheduler.add(schedule('c', { kind: 'every', everyMs: 60 * 60_000 }, clock.now()));
    expect((await scheduler.list(10)).map((s) => s.id)).toEqual(['b', 'c']);
    expect((await scheduler.list(1)).map((s) => s.id)).toEqual(['b']);
    await clock.advance(110 * 60_000); // to 02:00: b at 0:30, 1:00, 1:30, 2:00; c at 1:10
    expect(fired.filter((id) => id === 'b')).toHaveLength(4);
    expect(fired.filter((id) => id === 'c')).toHaveLength(1);
    expect(await scheduler.remove('b')).toBe(true);
    expect(await scheduler.remove('b')).toBe(false);
    expect(await scheduler.get('b')).toBeUndefined();
    await clock.advance(120 * 60_000);
    expect(fired.filter((id) => id === 'b')).toHaveLength(4);
    expect(fired.filter((id) => id === 'c')).toHaveLength(3);
    await scheduler.close();
    await clock.advance(120 * 60_000);
    expect(fired.filter((id) => id === 'c')).toHaveLength(3);
  });

  it('counts failures in a row, reset by a success', async () => {
    const scheduler = new InProcessScheduler({ logger, clock: new ManualClock(0) });
    await scheduler.add(schedule('d', { kind: 'every', everyMs: 1000 }, 0));
    expect(await scheduler.recordOutcome('d', false)).toBe(1);
    expect(await scheduler.recordOutcome('d', false)).toBe(2);
    expect(await scheduler.recordOutcome('d', true)).toBe(0);
    expect(await scheduler.recordOutcome('d', false)).toBe(1);
    expect(await scheduler.recordOutcome('gone', false)).toBe(0);
    await scheduler.close();
  });

  it('skips a due time while the previous firing is still being handed on, and holds at most its bound', async () => {
    const clock = new ManualClock(0);
    const scheduler = new InProcessScheduler({ logger, clock, maxSchedules: 1 });
    let release!: () => void;
    const calls: number[] = [];
    await scheduler.start(async (f) => {
      calls.push(f.dueAtMs);
      await new Promise<void>((r) => (release = r));
    });
    await scheduler.add(schedule('e', { kind: 'every', everyMs: 1000 }, 0));
    await expect(scheduler.add(schedule('f', { kind: 'every', everyMs: 1000 }, 0))).rejects.toThrow(/too many/);
    await clock.advance(3000);
    expect(calls).toEqual([1000]);
    release();
    await clock.advance(1000);
    expect(calls).toEqual([1000, 4000]);
    release();
    await scheduler.close();
  });

  it('waits past the longest timer Node has (about 24.8 days) in steps', async () => {
    const clock = new ManualClock(0);
    const scheduler = new InProcessScheduler({ logger, clock });
    const fired: number[] = [];
    await scheduler.start(async (f) => void fired.push(f.dueAtMs));
    const days = 86_400_000;
    await scheduler.add(schedule('g', { kind: 'every', everyMs: 40 * days }, 0));
    await clock.advance(39 * days);
    expect(fired).toEqual([]);
    await clock.advance(days);
    expect(fired).toEqual([40 * days]);
    await scheduler.close();
  });
});
