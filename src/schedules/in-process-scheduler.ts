import type { Schedule } from '../domain/schedule.js';
import type { Logger } from '../logger.js';
import type { FiringHandler, Scheduler } from '../ports/scheduler.js';
import { nextFireMs } from './next-fire.js';

/** The clock an {@link InProcessScheduler} reads and sets its timers on (tests drive one by hand). */
export interface SchedulerClock {
  now(): number;
  /** Calls `fn` after `ms`; the returned function cancels it. */
  setTimer(fn: () => void, ms: number): () => void;
}

/** Longest single timer: Node's setTimeout overflows past 2^31-1 ms, so a longer wait is taken in steps. */
const MAX_TIMER_MS = 2_147_483_647;

export const SYSTEM_CLOCK: SchedulerClock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

export interface InProcessSchedulerOptions {
  logger: Logger;
  /** @defaultValue the system clock */
  clock?: SchedulerClock;
  /** Most schedules held; adding past it throws (the core's limits keep far below). @defaultValue 100000 */
  maxSchedules?: number;
}

interface Entry {
  schedule: Schedule;
  failures: number;
  cancelTimer?: () => void;
}

/**
 * Schedules in this process's memory, fired by timers: the embedded default without Redis. They are lost when the
 * process stops (the README says so). A firing whose handler is still running when the next is due is skipped, so
 * a slow run never piles up firings.
 */
export class InProcessScheduler implements Scheduler {
  private readonly entries = new Map<string, Entry>();
  private readonly clock: SchedulerClock;
  private onFire: FiringHandler | undefined;
  private readonly busy = new Set<string>();
  private closed = false;

  constructor(private readonly options: InProcessSchedulerOptions) {
    this.clock = options.clock ?? SYSTEM_CLOCK;
  }

  add(schedule: Schedule): Promise<void> {
    if (this.entries.size >= (this.options.maxSchedules ?? 100_000))
      return Promise.reject(new Error('too many schedules in this process'));
    this.entries.get(schedule.id)?.cancelTimer?.();
    const entry: Entry = { schedule, failures: 0 };
    this.entries.set(schedule.id, entry);
    this.arm(entry, this.clock.now());
    return Promise.resolve();
  }

  remove(id: string): Promise<boolean> {
    const entry = this.entries.get(id);
    entry?.cancelTimer?.();
    return Promise.resolve(this.entries.delete(id));
  }

  get(id: string): Promise<Schedule | undefined> {
    return Promise.resolve(this.entries.get(id)?.schedule);
  }

  list(max: number): Promise<Schedule[]> {
    const all = [...this.entries.values()].map((e) => e.schedule);
    return Promise.resolve(all.sort((a, b) => a.createdAtMs - b.createdAtMs).slice(0, max));
  }

  recordOutcome(id: string, ok: boolean): Promise<number> {
    const entry = this.entries.get(id);
    if (!entry) return Promise.resolve(0);
    entry.failures = ok ? 0 : entry.failures + 1;
    return Promise.resolve(entry.failures);
  }

  start(onFire: FiringHandler): Promise<void> {
    this.onFire = onFire;
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.closed = true;
    for (const entry of this.entries.values()) entry.cancelTimer?.();
    return Promise.resolve();
  }

  /** Sets the entry's timer for its next due time after `afterMs`. */
  private arm(entry: Entry, afterMs: number): void {
    if (this.closed) return;
    const { schedule } = entry;
    const dueAtMs = nextFireMs(schedule.when, afterMs, schedule.createdAtMs);
    const wait = (): void => {
      const left = dueAtMs - this.clock.now();
      if (left > 0) {
        entry.cancelTimer = this.clock.setTimer(wait, Math.min(left, MAX_TIMER_MS));
        return;
      }
      this.fire(entry, dueAtMs);
      if (this.entries.get(schedule.id) === entry) this.arm(entry, Math.max(dueAtMs, this.clock.now()));
    };
    entry.cancelTimer = this.clock.setTimer(wait, Math.min(Math.max(0, dueAtMs - this.clock.now()), MAX_TIMER_MS));
  }

  private fire(entry: Entry, dueAtMs: number): void {
    const { id } = entry.schedule;
    const onFire = this.onFire;
    if (!onFire || this.closed) return;
    if (this.busy.has(id)) {
      this.options.logger.warn(
        { schedule: id },
        'schedule skipped a firing: its previous one is still being handed on',
      );
      return;
    }
    this.busy.add(id);
    void onFire({ schedule: entry.schedule, dueAtMs })
      .catch((err: unknown) => this.options.logger.error({ err, schedule: id }, 'schedule firing failed'))
      .finally(() => this.busy.delete(id));
  }
}
