import type { Logger } from '../src/logger.js';
import { readPoolDemand, removeStaleTemps, writePoolDemand } from './pool-demand-file.js';

/** How long after a change in demand it is saved: a crash loses at most this much of what the pool learned. */
export const DEFAULT_DEMAND_SAVE_DELAY_MS = 2_000;

/** The part of the warm pool (`WarmPool`) whose demand is remembered. */
export interface RememberingPool {
  readonly maxSize: number;
  readonly target: number;
  /** When sessions began within its window, oldest first. */
  learnedDemand(): readonly number[];
  remember(sessionStartsMs: readonly number[]): void;
}

export interface PoolMemoryOptions {
  /** The demand file (`poolDemandFile` in THREADLAB_DATA_DIR). */
  path: string;
  pool: RememberingPool;
  logger: Logger;
  /** Time from a change to its save; changes meanwhile ride along. @defaultValue 2000 */
  saveDelayMs?: number;
}

/**
 * Keeps a warm pool's learned demand across restarts: read once at start, saved a little after it changes
 * (at most one write per `saveDelayMs`, whatever the rate of sessions) and on close. A process whose demand
 * never changed never writes, so it leaves a peer's record alone. A failed write is logged and tried again
 * with the next change or at close; nothing here throws.
 */
export class PoolMemory {
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;
  private closed = false;
  private saving: Promise<void> = Promise.resolve();

  constructor(private readonly options: PoolMemoryOptions) {}

  /**
   * The session starts saved by the last run (hostile files ignored with a warning), at most `maxEntries`; the
   * temporary files of writes a crash interrupted go.
   */
  async load(maxEntries: number, nowMs = Date.now()): Promise<number[]> {
    await removeStaleTemps(this.options.path, nowMs);
    return readPoolDemand({ path: this.options.path, maxEntries, nowMs, logger: this.options.logger });
  }

  /** Gives the pool what the last run learned, before its first fill: it fills straight to that size, primed. */
  async restore(): Promise<void> {
    const { pool, logger } = this.options;
    pool.remember(await this.load(pool.maxSize));
    const learned = pool.learnedDemand().length;
    if (learned > 0)
      logger.info(
        { learned, target: pool.target },
        'warm pool remembers the sessions that began before the restart; filling to its target',
      );
  }

  /** Says the demand changed: it is saved within `saveDelayMs`. */
  changed(): void {
    if (this.closed) return;
    this.dirty = true;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.save();
    }, this.options.saveDelayMs ?? DEFAULT_DEMAND_SAVE_DELAY_MS);
    this.timer.unref();
  }

  /** Saves now what changed since the last save, after any save in flight. */
  save(): Promise<void> {
    this.saving = this.saving.then(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      const starts = [...this.options.pool.learnedDemand()];
      try {
        await writePoolDemand(this.options.path, starts);
      } catch (err) {
        this.dirty = true;
        this.options.logger.warn(
          { err, path: this.options.path },
          'warm pool: could not save what it learned about demand; a restart starts the pool at its size',
        );
      }
    });
    return this.saving;
  }

  /** Saves what changed and stops: later changes are not saved. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.save();
  }
}
