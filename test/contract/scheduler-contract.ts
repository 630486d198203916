import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Schedule } from '../../src/domain/schedule.js';
import type { ScheduleFiring, Scheduler } from '../../src/ports/scheduler.js';

export type SchedulerFactory = () => Promise<{ scheduler: Scheduler; dispose(): Promise<void> }>;

function schedule(when: Schedule['when'], createdAtMs = Date.now()): Schedule {
  const id = `sch-${randomUUID()}`;
  return {
    id,
    threadKey: `web:local:web:${id}`,
    thread: { platform: 'web', workspace: 'local', channel: 'web', thread: id },
    creator: { id: 'u1', name: 'Ann' },
    when,
    task: { kind: 'ask', text: 'numbers?' },
    createdAtMs,
  };
}

const waitFor = async (check: () => boolean, timeoutMs: number, what: string): Promise<void> => {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

/** The Scheduler port's contract, run against every implementation on a real clock with a 1 s interval. */
export function schedulerContract(name: string, factory: SchedulerFactory): void {
  describe(`Scheduler contract: ${name}`, () => {
    const disposers: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const dispose of disposers.splice(0)) await dispose();
    });
    const make = async () => {
      const made = await factory();
      disposers.push(() => made.dispose());
      return made.scheduler;
    };

    it('keeps, lists oldest first (bounded), gets and removes schedules', async () => {
      const scheduler = await make();
      const a = schedule({ kind: 'every', everyMs: 3_600_000 }, 1000);
      const b = schedule({ kind: 'at', hour: 9, minute: 0, days: [1, 2, 3, 4, 5], timeZone: 'Europe/Paris' }, 2000);
      await scheduler.add(b);
      await scheduler.add(a);
      expect((await scheduler.list(10)).map((s) => s.id)).toEqual([a.id, b.id]);
      expect((await scheduler.list(1)).map((s) => s.id)).toEqual([a.id]);
      expect(await scheduler.get(b.id)).toEqual(b);
      expect(await scheduler.remove(b.id)).toBe(true);
      expect(await scheduler.remove(b.id)).toBe(false);
      expect(await scheduler.get(b.id)).toBeUndefined();
    });

    it('counts failures in a row, and a success resets them', async () => {
      const scheduler = await make();
      const s = schedule({ kind: 'every', everyMs: 3_600_000 });
      await scheduler.add(s);
      expect(await scheduler.recordOutcome(s.id, false)).toBe(1);
      expect(await scheduler.recordOutcome(s.id, false)).toBe(2);
      expect(await scheduler.recordOutcome(s.id, true)).toBe(0);
      expect(await scheduler.recordOutcome(s.id, false)).toBe(1);
    });

    it('fires an interval schedule one interval after its creation, again and again, until removed', async () => {
      const scheduler = await make();
      const fired: ScheduleFiring[] = [];
      await scheduler.start(async (f) => void fired.push(f));
      const s = schedule({ kind: 'every', everyMs: 1000 });
      await scheduler.add(s);
      await new Promise((r) => setTimeout(r, 500));
      expect(fired).toHaveLength(0);
      await waitFor(() => fired.length >= 2, 5000, 'two firings');
      expect(fired[0]!.schedule).toEqual(s);
      expect(fired[1]!.dueAtMs - fired[0]!.dueAtMs).toBeGreaterThanOrEqual(900);
      expect(new Set(fired.map((f) => f.dueAtMs)).size).toBe(fired.length);
      await scheduler.remove(s.id);
      const count = fired.length;
      await new Promise((r) => setTimeout(r, 2500));
      expect(fired.length).toBeLessThanOrEqual(count + 1); // one may have been taken already
    });
  });
}
