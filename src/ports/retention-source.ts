/**
 * A place that holds per-thread data (the files' host copies, conversation memory, a surface's own history, a live
 * container, schedules, the who-wrote index), implemented at the edge; retention (src/governance/retention) only
 * decides which threads go and collects what each source reports.
 */

/** One thing a source removed. */
export interface PurgedItem {
  /** What kind of data: `files`, `state` (saved variables), `memory`, a surface's history, `container`, `index`. */
  what: string;
  /** The thread's key when known, else the name the data is stored under (the key's hash). */
  thread: string;
  /** Files removed, where the source counts them. */
  files?: number;
  /** Bytes removed, where the source counts them. */
  bytes?: number;
  /** A short human note (`12 messages, 3 uploads`). */
  note?: string;
}

/** Limits of an idle purge: threads it must leave, and how many it may remove in one call. */
export interface IdleOptions {
  /** True for a thread (by its hash, the name its files are stored under) that must stay: a live session's. */
  keep?: (hash: string) => boolean;
  /** Threads removed at most in this call; the rest are left for the next (a timed sweep's bound). */
  maxThreads?: number;
}

/** A place that holds per-thread data. */
export interface RetentionSource {
  /** For the report: `thread files`, `conversation memory`… */
  readonly name: string;
  /** Removes everything the source holds for the thread with this key. */
  purgeThread(key: string): Promise<PurgedItem[]>;
  /** Removes the data of every thread untouched since `cutoffMs` (epoch ms), within `options`. */
  purgeIdle(cutoffMs: number, options?: IdleOptions): Promise<PurgedItem[]>;
}
