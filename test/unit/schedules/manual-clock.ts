import type { SchedulerClock } from '../../../src/schedules/in-process-scheduler.js';

/** A clock tests move by hand: timers run in due order as it passes them, with the microtasks between. */
export class ManualClock implements SchedulerClock {
  private timers: { atMs: number; fn: () => void; id: number }[] = [];
  private nextId = 0;

  constructor(private nowMs: number) {}

  now(): number {
    return this.nowMs;
  }

  setTimer(fn: () => void, ms: number): () => void {
    const id = (this.nextId += 1);
    this.timers.push({ atMs: this.nowMs + ms, fn, id });
    return () => {
      this.timers = this.timers.filter((t) => t.id !== id);
    };
  }

  /** Moves the clock on by `ms`, running each timer due on the way at its own time. */
  async advance(ms: number): Promise<void> {
    const target = this.nowMs + ms;
    for (;;) {
      await flush();
      const due = this.timers.filter((t) => t.atMs <= target).sort((a, b) => a.atMs - b.atMs || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.nowMs = Math.max(this.nowMs, due.atMs);
      due.fn();
    }
    this.nowMs = target;
    await flush();
  }
}

async function flush(): Promise<void> {
  for (let i = 0; i < 20; i += 1) await Promise.resolve();
}
