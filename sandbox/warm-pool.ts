import type { Logger } from '../src/logger.js';
import type { LiveContainer } from './live-container.js';

/**
 * What the sandbox reports about its pool and sessions, for metrics. Structurally the `pool` part of
 * src/ops/metrics.ts, so the sandbox never imports prom-client.
 */
export interface PoolObserver {
  size(warm: number): void;
  sessions(active: number): void;
  hit(): void;
  miss(): void;
}

export interface WarmPoolOptions {
  /** Told the number of ready containers whenever it changes. */
  observer?: Pick<PoolObserver, 'size'>;
  /** Containers kept started and ready. 0 disables the pool. */
  size: number;
  /** Starts one container whose runner is ready. */
  launch: () => Promise<LiveContainer>;
  logger: Logger;
  /** Delay before retrying after a failed start, doubled up to 30 s. @defaultValue 1000 */
  retryDelayMs?: number;
}

/**
 * Pre-started containers whose runner has imported its libraries. `take()` hands each out once and
 * refills in the background, one start at a time (starting is CPU-heavy).
 */
export class WarmPool {
  private readonly ready: LiveContainer[] = [];
  private filling: Promise<void> | undefined;
  private closed = false;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private waiters: (() => void)[] = [];

  constructor(private readonly options: WarmPoolOptions) {}

  /** Containers ready to hand out now. */
  get available(): number {
    return this.ready.filter((c) => c.isAlive).length;
  }

  /** Removes a ready container from the pool, or returns undefined when none is ready. */
  take(): LiveContainer | undefined {
    let live: LiveContainer | undefined;
    while ((live = this.ready.shift())) {
      if (live.isAlive) break;
      void live.remove();
    }
    this.fill();
    this.options.observer?.size(this.available);
    return live;
  }

  /** Starts filling up to `size` in the background. */
  fill(): void {
    if (this.closed || this.filling || this.options.size <= 0 || this.retryTimer) return;
    this.filling = this.fillLoop().finally(() => {
      this.filling = undefined;
    });
  }

  /** Resolves when the pool holds `size` ready containers (or is closed). For benchmarks and tests. */
  async whenFull(): Promise<void> {
    this.fill();
    while (!this.closed && this.available < this.options.size) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.wake();
    await this.filling?.catch(() => undefined);
    await Promise.all(this.ready.splice(0).map((c) => c.remove()));
  }

  private async fillLoop(): Promise<void> {
    while (!this.closed && this.available < this.options.size) {
      try {
        const live = await this.options.launch();
        if (this.closed) {
          await live.remove();
          return;
        }
        this.failures = 0;
        this.ready.push(live);
        this.options.observer?.size(this.available);
        void live.connection.closed.then(() => this.onPooledClosed(live));
        this.wake();
      } catch (err) {
        if (this.closed) return;
        this.failures += 1;
        const delayMs = Math.min(30_000, (this.options.retryDelayMs ?? 1000) * 2 ** (this.failures - 1));
        this.options.logger.warn({ err, delayMs }, 'warm pool could not start a sandbox; retrying');
        this.retryTimer = setTimeout(() => {
          this.retryTimer = undefined;
          this.fill();
        }, delayMs);
        this.retryTimer.unref();
        return;
      }
    }
  }

  private onPooledClosed(live: LiveContainer): void {
    const index = this.ready.indexOf(live);
    if (index < 0) return;
    this.ready.splice(index, 1);
    void live.remove();
    this.fill();
  }

  private wake(): void {
    for (const resolve of this.waiters.splice(0)) resolve();
  }
}
