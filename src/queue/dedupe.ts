/** Remembers ids for a while so a redelivered platform event runs once. */
export class SeenIds {
  private readonly expiry = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** True the first time an id is seen within `ttlMs`; false for a repeat. */
  firstSight(id: string): boolean {
    const nowMs = this.now();
    const until = this.expiry.get(id);
    if (until !== undefined && until > nowMs) return false;
    this.expiry.set(id, nowMs + this.ttlMs);
    if (this.expiry.size % 1000 === 0) this.sweep(nowMs);
    return true;
  }

  private sweep(nowMs: number): void {
    for (const [id, until] of this.expiry) if (until <= nowMs) this.expiry.delete(id);
  }
}
