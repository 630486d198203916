import type { Schedule } from '../domain/schedule.js';

/** One due time of a schedule, handed to the core once across every process that shares the scheduler. */
export interface ScheduleFiring {
  schedule: Schedule;
  /** When it was due (epoch ms): a firing's own id, so a redelivered firing is recognised. */
  dueAtMs: number;
}

/** What the core does with a firing; it never throws (a failure is its own to record). */
export type FiringHandler = (firing: ScheduleFiring) => Promise<void>;

/**
 * Where schedules live and fire. In this process (timers; lost on restart) without REDIS_URL; BullMQ job schedulers
 * in Redis with it (they survive restarts and fire once across many workers). The core keeps every rule (limits,
 * access, budgets, failures): a scheduler stores, fires and counts.
 */
export interface Scheduler {
  /** Adds a schedule (its id new); it first fires at its next due time after now. */
  add(schedule: Schedule): Promise<void>;
  /** Removes a schedule; false when there was none with that id. */
  remove(id: string): Promise<boolean>;
  /** A schedule by id, or undefined once it was removed. */
  get(id: string): Promise<Schedule | undefined>;
  /** Every schedule, oldest first, at most `max` (the caller's bound on what it counts). */
  list(max: number): Promise<Schedule[]>;
  /**
   * Records how a firing's run ended and returns the schedule's failures in a row (0 after a success). Counted where
   * every process sees it.
   */
  recordOutcome(id: string, ok: boolean): Promise<number>;
  /** Starts firing: `onFire` gets each due time once (the worker role). */
  start(onFire: FiringHandler): Promise<void>;
  /** Stops firing and releases timers and connections. */
  close(): Promise<void>;
}
