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
  /** A Python kernel was replaced by a lean one: an idle thread's (`thread`), or a pooled container's whose priming aged out (`pool`). */
  leanKernel?(where: 'thread' | 'pool'): void;
  /** A thread's container was renewed after a run (sandbox/host-tasks.ts). */
  renewed?(reason: 'host_tasks'): void;
}

/** How long a new session counts as demand for the pool. */
export const DEFAULT_DEMAND_WINDOW_MS = 10 * 60_000;
/** Container starts in flight at once while the pool fills. */
export const DEFAULT_PARALLEL_STARTS = 2;

export interface WarmPoolOptions {
  /** Told the number of ready containers whenever it changes. */
  observer?: Pick<PoolObserver, 'size' | 'leanKernel'>;
  /** Containers always kept started and ready (THREADLAB_SANDBOX_POOL_SIZE). 0, with `maxSize` 0, disables the pool. */
  size: number;
  /**
   * Most containers kept ready when recent demand is above `size` (THREADLAB_SANDBOX_POOL_MAX): the bound on the
   * pool's memory. @defaultValue `size` (a fixed pool)
   */
  maxSize?: number;
  /** How long a new session counts as demand: the pool holds as many as sessions began in this window. @defaultValue 10 min */
  demandWindowMs?: number;
  /** Container starts in flight at once while filling. @defaultValue 2 */
  parallelStarts?: number;
  /**
   * How many more containers the host has room for now (`memoryHeadroom`, sandbox/pool-headroom.ts). Above `size`
   * the pool starts another only while this exceeds the starts in flight, so demand grows it only as far as the
   * host's memory allows. @defaultValue unbounded (only `maxSize` bounds it)
   */
  headroom?: () => number;
  /** Starts one container whose runner is ready. */
  launch: () => Promise<LiveContainer>;
  /**
   * Readies a started container further while sessions are beginning (a session began within the demand window):
   * the data stack loaded into its kernel, so the next burst's first runs find it there. In quiet times
   * containers wait without it, holding less memory. A failure leaves the container as it was.
   */
  prime?: (live: LiveContainer) => Promise<void>;
  /**
   * Undoes `prime` once the demand it was for aged out (no session began within the window): the container's kernel
   * is replaced by a lean one, so a quiet pool holds what one at rest holds. Taken out of the pool meanwhile; a
   * failure removes the container (the pool refills with a fresh one).
   */
  unprime?: (live: LiveContainer) => Promise<void>;
  logger: Logger;
  /** Told whenever a session start is counted as demand (to save what the pool learned: `PoolMemory`). */
  onDemand?: () => void;
  /** Delay before retrying after a failed start, doubled up to 30 s. @defaultValue 1000 */
  retryDelayMs?: number;
  /** The clock, in ms. @defaultValue Date.now */
  now?: () => number;
}

/**
 * Pre-started containers whose runner is ready (primed with the data stack while there is demand). `take()` hands
 * each out once. The pool keeps
 * `size` ready, and more (up to `maxSize`) while sessions begin faster: it holds as many as began in the last
 * `demandWindowMs`, so a burst that followed another is served from the pool; it shrinks back, oldest first, as
 * that demand ages out. It refills `parallelStarts` at a time.
 */
export class WarmPool {
  private readonly ready: LiveContainer[] = [];
  private readonly starts = new Set<Promise<void>>();
  /** When recent sessions began (takes, served or not), oldest first; at most `maxSize` kept. */
  private readonly demand: number[] = [];
  private closed = false;
  /** Sessions starting their own container or restoring into a pooled one: the pool starts nothing meanwhile. */
  private missesStarting = 0;
  private failures = 0;
  /** Ready containers holding the data stack (primed), and how many are out being made lean again. */
  private readonly primed = new Set<LiveContainer>();
  private unpriming = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private shrinkTimer: NodeJS.Timeout | undefined;
  private waiters: (() => void)[] = [];
  /** The most containers the pool holds, and the most session starts it remembers (THREADLAB_SANDBOX_POOL_MAX). */
  readonly maxSize: number;
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(private readonly options: WarmPoolOptions) {
    this.maxSize = Math.max(options.size, options.maxSize ?? options.size);
    this.windowMs = options.demandWindowMs ?? DEFAULT_DEMAND_WINDOW_MS;
    this.now = options.now ?? Date.now;
  }

  /** Containers ready to hand out now. */
  get available(): number {
    return this.ready.filter((c) => c.isAlive).length;
  }

  /** How many the pool wants ready now: `size`, or the sessions begun in the window, up to `maxSize`. */
  get target(): number {
    this.forgetOldDemand();
    return Math.min(this.maxSize, Math.max(this.options.size, this.demand.length));
  }

  /**
   * Removes a ready container from the pool, or returns undefined when none is ready; either way it counts as demand.
   * After a miss the caller starts its own container through {@link missStart}, and the pool refills after it.
   */
  take(): LiveContainer | undefined {
    if (this.maxSize > 0) {
      this.demand.push(this.now());
      if (this.demand.length > this.maxSize) this.demand.shift();
      this.options.onDemand?.();
    }
    let live: LiveContainer | undefined;
    while ((live = this.ready.shift())) {
      this.primed.delete(live);
      if (live.isAlive) break;
      void live.remove();
    }
    if (live) this.fill();
    this.options.observer?.size(this.available);
    return live;
  }

  /** When the sessions still counted as demand began, oldest first: what a restart should remember. */
  learnedDemand(): number[] {
    this.forgetOldDemand();
    return [...this.demand];
  }

  /**
   * Adds session starts learned before (a previous run's {@link learnedDemand}) to the demand, before the first
   * fill: the pool then refills straight to that size, primed, and lets it age out as usual. Starts outside the
   * window, in the future or past `maxSize` (the oldest) are dropped, so nothing remembered grows the pool beyond
   * `maxSize` or keeps it grown longer than the window.
   */
  remember(sessionStartsMs: readonly number[]): void {
    const now = this.now();
    const known = sessionStartsMs.filter((t) => Number.isFinite(t) && t <= now);
    this.demand.push(...known);
    this.demand.sort((a, b) => a - b);
    this.demand.splice(0, Math.max(0, this.demand.length - this.maxSize));
    this.forgetOldDemand();
  }

  /**
   * Runs the start of a session that found the pool empty. Until it (and every other such start) is done the pool
   * starts nothing itself: on a burst the waiting sessions have the CPU, and the pool refills after them.
   */
  missStart<T>(start: () => Promise<T>): Promise<T> {
    return this.quietWhile(start);
  }

  /**
   * Runs `work` while the pool starts nothing, and refills after it: a session taking a ready container and
   * restoring its files and variables into it, so a container start (seconds of CPU) does not slow its restore.
   */
  async quietWhile<T>(work: () => Promise<T>): Promise<T> {
    this.missesStarting += 1;
    try {
      return await work();
    } finally {
      this.missesStarting -= 1;
      this.fill();
    }
  }

  /** Starts filling up to the target in the background, `parallelStarts` at a time. */
  fill(): void {
    if (this.closed || this.retryTimer || this.missesStarting > 0) return;
    this.armShrink();
    const parallel = Math.max(1, this.options.parallelStarts ?? DEFAULT_PARALLEL_STARTS);
    while (
      this.available + this.unpriming + this.starts.size < this.target &&
      this.starts.size < parallel &&
      this.hasRoom()
    ) {
      const start: Promise<void> = this.startOne().finally(() => {
        this.starts.delete(start);
        this.fill();
        // A waiter for a full pool looks again: the pool may have stopped where the host's memory bound it.
        this.wake();
      });
      this.starts.add(start);
    }
  }

  /**
   * Whether the pool may start one more container: always up to `size`; beyond it, while the host's memory has
   * room for more than the starts already in flight.
   */
  private hasRoom(): boolean {
    if (this.available + this.unpriming + this.starts.size < this.options.size) return true;
    return !this.options.headroom || this.options.headroom() > this.starts.size;
  }

  /** Whether the pool stopped short of its target because the host's memory has no room for more. */
  get memoryBound(): boolean {
    return this.starts.size === 0 && this.available + this.unpriming < this.target && !this.hasRoom();
  }

  /**
   * Resolves when the pool holds its target of ready containers, or as many as the host's memory had room for
   * (or it is closed). For benchmarks and tests.
   */
  async whenFull(): Promise<void> {
    this.fill();
    while (!this.closed && this.available + this.unpriming < this.target && !this.memoryBound) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.shrinkTimer);
    this.wake();
    await Promise.all([...this.starts].map((s) => s.catch(() => undefined)));
    this.primed.clear();
    await Promise.all(this.ready.splice(0).map((c) => c.remove()));
  }

  private async startOne(): Promise<void> {
    try {
      const live = await this.options.launch();
      this.forgetOldDemand();
      if (!this.closed && this.demand.length > 0 && this.options.prime) {
        await this.options.prime(live).then(
          () => this.primed.add(live),
          (err: unknown) => {
            this.options.logger.warn({ err }, 'warm pool could not prime a sandbox; it waits without the data stack');
          },
        );
      }
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
      if (this.retryTimer) return;
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        this.fill();
      }, delayMs);
      this.retryTimer.unref();
    }
  }

  /**
   * While the pool may hold more than `size`, or containers primed for demand, it looks now and then for demand
   * that aged out.
   */
  private armShrink(): void {
    const mayGrow = this.maxSize > this.options.size;
    const mayPrime = this.options.prime !== undefined && this.options.unprime !== undefined;
    if (this.shrinkTimer || !(mayGrow || mayPrime)) return;
    const everyMs = Math.max(1000, Math.min(60_000, Math.floor(this.windowMs / 4)));
    this.shrinkTimer = setInterval(() => this.shrink(), everyMs);
    this.shrinkTimer.unref();
  }

  /** Removes ready containers above the target, oldest first; once no demand is left, primed ones go lean. */
  shrink(): void {
    let surplus = this.available - this.target;
    while (surplus > 0 && !this.closed) {
      const oldest = this.ready.shift();
      if (!oldest) break;
      this.primed.delete(oldest);
      if (oldest.isAlive) surplus -= 1;
      void oldest.remove();
    }
    this.options.observer?.size(this.available);
    void this.unprimeWhenQuiet();
  }

  /**
   * With no session begun within the window, takes primed containers out one at a time and makes them lean again
   * (`unprime`), then puts them back; a failure removes the container. Resolves when none is left to do.
   */
  async unprimeWhenQuiet(): Promise<void> {
    const { unprime } = this.options;
    if (!unprime || this.unpriming > 0) return;
    for (;;) {
      this.forgetOldDemand();
      if (this.closed || this.demand.length > 0) return;
      const live = this.ready.find((c) => this.primed.has(c));
      if (!live) return;
      this.ready.splice(this.ready.indexOf(live), 1);
      this.primed.delete(live);
      this.unpriming += 1;
      try {
        await unprime(live);
        this.options.observer?.leanKernel?.('pool');
        if (this.closed || !live.isAlive) await live.remove();
        else this.ready.push(live);
      } catch (err) {
        this.options.logger.warn({ err }, 'warm pool could not make a primed sandbox lean; it is replaced');
        await live.remove();
      } finally {
        this.unpriming -= 1;
      }
      this.options.observer?.size(this.available);
      this.wake();
      this.fill();
    }
  }

  private forgetOldDemand(): void {
    const since = this.now() - this.windowMs;
    while (this.demand.length > 0 && this.demand[0]! <= since) this.demand.shift();
  }

  private onPooledClosed(live: LiveContainer): void {
    this.primed.delete(live);
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
