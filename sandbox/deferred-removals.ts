import type { LiveContainer } from './live-container.js';

/** Time without a new eviction before the evicted containers are removed. */
export const DEFAULT_QUIET_MS = 2_000;
/** The longest an evicted container waits for its removal, however busy sessions are. */
export const DEFAULT_MAX_DELAY_MS = 30_000;
/** Evicted containers waiting at most; past it an eviction removes its container at once. */
export const DEFAULT_MAX_WAITING = 64;

export interface DeferredRemovalsOptions {
  /** @defaultValue DEFAULT_QUIET_MS */
  quietMs?: number;
  /** @defaultValue DEFAULT_MAX_DELAY_MS */
  maxDelayMs?: number;
  /** @defaultValue DEFAULT_MAX_WAITING */
  maxWaiting?: number;
  /** How many more sandboxes the host's memory has room for (`memoryHeadroom`); at 0 a removal is not put off. */
  headroom?: () => number;
}

/**
 * Removes the containers of evicted sessions once evictions stop, rather than in the middle of them. Removing a
 * gVisor sandbox costs about half a second of CPU (its kernel and gofer torn down: 350–530 ms measured here, runsc
 * ptrace); a burst of new threads that evicts the previous burst's idle sessions paid that in its own time on two
 * cores (issue 41: 44 s of CPU for 50 evictions in a 50-thread burst). A container put here is no session's any
 * more and gets no request; it is removed when no eviction came for `quietMs`, or once it has waited `maxDelayMs`,
 * one at a time. Never more than `maxWaiting` wait, and none when the host's memory has no room to hold them.
 */
export class DeferredRemovals {
  private readonly waiting: { live: LiveContainer; sinceMs: number }[] = [];
  private lastMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private draining: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly options: DeferredRemovalsOptions) {}

  /** Containers waiting for their removal. */
  get size(): number {
    return this.waiting.length;
  }

  /**
   * Removes `live` later (resolves at once), or now (resolves once removed) when closed, when `maxWaiting` already
   * wait, or when the host's memory has no room for it to linger.
   */
  async remove(live: LiveContainer): Promise<void> {
    const full = this.waiting.length >= (this.options.maxWaiting ?? DEFAULT_MAX_WAITING);
    if (this.closed || full || (this.options.headroom && this.options.headroom() <= 0)) return live.remove();
    this.lastMs = Date.now();
    this.waiting.push({ live, sinceMs: this.lastMs });
    this.arm();
  }

  /** Removes every waiting container now, and those put here later at once. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.draining;
    await Promise.all(this.waiting.splice(0).map(({ live }) => live.remove()));
  }

  private arm(): void {
    if (this.draining || this.closed) return;
    clearTimeout(this.timer);
    const oldest = this.waiting[0];
    if (!oldest) return;
    const quietAt = this.lastMs + (this.options.quietMs ?? DEFAULT_QUIET_MS);
    const latestAt = oldest.sinceMs + (this.options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS);
    this.timer = setTimeout(() => this.drain(), Math.max(0, Math.min(quietAt, latestAt) - Date.now()));
    this.timer.unref();
  }

  /** Whether the oldest waiting container is to go now: evictions stopped, or it waited long enough. */
  private due(): boolean {
    const oldest = this.waiting[0];
    if (!oldest) return false;
    const now = Date.now();
    const quiet = now >= this.lastMs + (this.options.quietMs ?? DEFAULT_QUIET_MS);
    return quiet || now >= oldest.sinceMs + (this.options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS);
  }

  private drain(): void {
    this.timer = undefined;
    this.draining = (async () => {
      while (!this.closed && this.due()) await this.waiting.shift()!.live.remove();
    })().finally(() => {
      this.draining = undefined;
      this.arm();
    });
  }
}
