/** Counts free slots; `acquire` waits in FIFO order when none is free. */
export class Semaphore {
  private readonly waiters: Array<() => void> = [];

  constructor(private free: number) {}

  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free -= 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.free += 1;
  }
}
