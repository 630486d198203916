import { ThreadlabError } from '../../domain/errors.js';
import type { BudgetCounters, BudgetSpend } from '../../ports/budget.js';

/** Most keys kept for one day in memory. @defaultValue 100,000 */
export const MEMORY_BUDGET_MAX_KEYS = 100_000;

/**
 * Budget counters in this process's memory (no REDIS_URL). Only the current day is kept: a new day drops
 * the last. Past `maxKeys` distinct users and workspaces in a day, a new one is refused rather than an old
 * one forgotten (forgetting would reset someone's budget).
 */
export class MemoryBudgetCounters implements BudgetCounters {
  private day = '';
  private readonly totals = new Map<string, BudgetSpend>();
  private readonly claimed = new Set<string>();

  constructor(private readonly options: { maxKeys?: number } = {}) {}

  add(o: { day: string; keys: string[]; spend: BudgetSpend }): Promise<BudgetSpend[]> {
    this.roll(o.day);
    // A late add of a day already gone counts into today; what it gives back does not (that day's totals are gone).
    const spend =
      o.day < this.day ? { tokens: Math.max(0, o.spend.tokens), runMs: Math.max(0, o.spend.runMs) } : o.spend;
    const max = this.options.maxKeys ?? MEMORY_BUDGET_MAX_KEYS;
    const fresh = o.keys.filter((k) => !this.totals.has(k)).length;
    if (this.totals.size + fresh > max) {
      return Promise.reject(
        new ThreadlabError(
          'budget_exceeded',
          `The daily budget counters of this process are full (${max} users and workspaces today); they reset at midnight UTC. An operator can set REDIS_URL to keep them in Redis.`,
          { isPolicy: true, details: { maxKeys: max } },
        ),
      );
    }
    return Promise.resolve(
      o.keys.map((key) => {
        const t = this.totals.get(key) ?? { tokens: 0, runMs: 0 };
        const next = { tokens: t.tokens + spend.tokens, runMs: t.runMs + spend.runMs };
        this.totals.set(key, next);
        return { ...next };
      }),
    );
  }

  read(day: string, keys: string[]): Promise<BudgetSpend[]> {
    const current = day === this.day;
    return Promise.resolve(keys.map((k) => ({ ...((current && this.totals.get(k)) || { tokens: 0, runMs: 0 }) })));
  }

  claimOnce(o: { day: string; key: string; flag: string }): Promise<boolean> {
    this.roll(o.day);
    const id = `${o.key}\u0000${o.flag}`;
    // Flags belong to keys already counted, so they are bounded by the same limit (two flags a key).
    if (this.claimed.has(id) || !this.totals.has(o.key)) return Promise.resolve(false);
    this.claimed.add(id);
    return Promise.resolve(true);
  }

  /** Keys counted today (tests of the bound). */
  get size(): number {
    return this.totals.size;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private roll(day: string): void {
    // ISO days order as strings; a late call from the day before adds to today rather than wiping it.
    if (day <= this.day) return;
    this.day = day;
    this.totals.clear();
    this.claimed.clear();
  }
}
