/** How one caller waits for a slot. */
export interface AcquireOptions {
  /** Wait ahead of every other waiter (a parked job coming back goes before new ones). @defaultValue false */
  first?: boolean;
  /** Gives up the wait when it aborts: the promise then resolves false and no slot is taken. */
  signal?: AbortSignal;
}

/** Counts free slots; `acquire` waits in FIFO order when none is free (or at the front, with `first`). */
export class Semaphore {
  private readonly waiters: Array<() => void> = [];

  constructor(private free: number) {}

  /** Takes a slot when one is free now; never waits. */
  tryAcquire(): boolean {
    if (this.free <= 0) return false;
    this.free -= 1;
    return true;
  }

  /** Resolves true once a slot is taken, or false when `options.signal` aborted first (no slot taken). */
  async acquire(options: AcquireOptions = {}): Promise<boolean> {
    const { signal } = options;
    if (signal?.aborted) return false;
    if (this.tryAcquire()) return true;
    return new Promise<boolean>((resolve) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', giveUp);
        resolve(true);
      };
      const giveUp = (): void => {
        const at = this.waiters.indexOf(grant);
        if (at >= 0) this.waiters.splice(at, 1);
        resolve(false);
      };
      signal?.addEventListener('abort', giveUp, { once: true });
      if (options.first) this.waiters.unshift(grant);
      else this.waiters.push(grant);
    });
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.free += 1;
  }
}
