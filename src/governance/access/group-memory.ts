/**
 * A person's group memberships as the platform said them, kept for a few seconds: the adapter's check before its
 * own side effects (a thread created, a root message posted) and the core's check of the same message then rest on
 * one answer from the platform, not two. Bounded; a membership change is seen once the entry is older than `ttlMs`.
 */
export class GroupMemory {
  private readonly entries = new Map<string, { groups: Promise<string[]>; untilMs: number }>();

  constructor(
    private readonly options: { ttlMs: number; maxEntries: number; now?: () => number } = {
      ttlMs: 10_000,
      maxEntries: 1000,
    },
  ) {}

  /** The groups of `key`, asked of `read` unless a fresh answer is kept; a failed answer is not kept. */
  groups(key: string, read: () => Promise<string[]>): Promise<string[]> {
    const nowMs = (this.options.now ?? Date.now)();
    const kept = this.entries.get(key);
    if (kept && kept.untilMs > nowMs) return kept.groups;
    this.entries.delete(key);
    if (this.entries.size >= this.options.maxEntries) this.sweep(nowMs);
    if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    const groups = read();
    this.entries.set(key, { groups, untilMs: nowMs + this.options.ttlMs });
    groups.catch(() => this.entries.delete(key));
    return groups;
  }

  get size(): number {
    return this.entries.size;
  }

  private sweep(nowMs: number): void {
    for (const [key, entry] of this.entries) if (entry.untilMs <= nowMs) this.entries.delete(key);
  }
}
