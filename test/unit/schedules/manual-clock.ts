import type { SchedulerClock } from '../../../src/schedules/in-process-scheduler.js';

/** A clock tests move by hand: timers run in due order as it passes them, with the microtasks between. */
export class ManualClock implements SchedulerClock {
  private readonly timers = new Map<number, { atMs: number; fn: () => void }>();
  private nextId = 0;

  constructor(private nowMs: number) {}

  now(): number {
    return this.nowMs;
  }

  setTimer(fn: () => void, ms: number): () => void {
    const id = (this.nextId += 1);
    this.timers.set(id, { atMs: this.nowMs + ms, fn });
    return () => void this.timers.delete(id);
  }

  /** Moves the clock on by `ms`, running each timer due on the way at its own time. */
  async advance(ms: number): Promise<void> {
    const target = this.nowMs + ms;
    for (;;) {
      await flush();
      let due: [number, { atMs: number; fn: () => void }] | undefined;
      for (const entry of this.timers) {
        if (entry[1].atMs > target) continue;
        if (!due || entry[1].atMs < due[1].atMs || (entry[1].atMs === due[1].atMs && entry[0] < due[0])) due = entry;
      }
      if (!due) break;
      this.timers.delete(due[0]);
      this.nowMs = Math.max(this.nowMs, due[1].atMs);
      due[1].fn();
    }
    this.nowMs = target;
    await flush();
  }
}

async function flush(): Promise<void> {
  for (let i = 0; i < 20; i += 1) await Promise.resolve();
}
