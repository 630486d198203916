/** What a turn spends: model tokens (prompt + completion) and code run time. */
export interface BudgetSpend {
  tokens: number;
  runMs: number;
}

/**
 * The daily budgets as one turn sees them: the interpreter loop asks before each model round whether it
 * may go on and reports what it spent. Implemented by the governance layer; absent when no budget is set.
 */
export interface TurnBudget {
  /** Undefined while the turn may go on; otherwise the user-facing refusal (which budget, when it resets). */
  exceeded(): Promise<string | undefined>;
  /** Adds what was just spent to the user's and the workspace's counters of the day. */
  charge(spent: Partial<BudgetSpend>): Promise<void>;
  /** Run time left today for the user and the workspace together, in ms; undefined without a run-time budget. */
  runMsLeft(): Promise<number | undefined>;
  /**
   * Holds `wanted` against today's budgets before the work starts, so that turns running at the same time count it
   * as spent: the refusal text when a budget this work needs is already spent (holds of other turns included),
   * else the hold, granted whole (a run already started finishes). Every hold must be settled.
   */
  hold(wanted: Partial<BudgetSpend>): Promise<BudgetHold | { refused: string }>;
}

/** Budget held for work in progress, replaced by what it really cost once it ends. */
export interface BudgetHold {
  /** What was held. */
  readonly granted: BudgetSpend;
  /** Replaces the hold with what the work spent (more or less than held); later calls do nothing. */
  settle(spent: Partial<BudgetSpend>): Promise<void>;
}

/**
 * Daily counters of spend per key (a user or a workspace), kept in the store that already exists: Redis
 * when REDIS_URL is set, this process's memory otherwise. Both pass one contract suite.
 */
export interface BudgetCounters {
  /**
   * Adds `spend` to each key's totals of `day` and returns the totals after, in order. Parts of `spend` may be
   * negative (a hold given back); a total is never read below zero. The totals are kept
   * for at least `keepMs` from now on the store's own clock: a duration, not an instant, so a caller whose
   * clock differs from the store's (another worker, a test's fixed clock) can never set an expiry in the past.
   */
  add(options: { day: string; keys: string[]; spend: BudgetSpend; keepMs: number }): Promise<BudgetSpend[]>;
  /** Each key's totals of `day`, in order (zero when none). */
  read(day: string, keys: string[]): Promise<BudgetSpend[]>;
  /** True for the first caller only, per day, key and flag (the 80 % notice is given once). */
  claimOnce(options: { day: string; key: string; flag: string; keepMs: number }): Promise<boolean>;
  close(): Promise<void>;
}
