const DAY_MS = 24 * 60 * 60 * 1000;

/** The UTC day of an instant, `YYYY-MM-DD`: budgets count per UTC day. */
export function budgetDay(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 10);
}

/** When the budgets of the day that contains `nowMs` reset: the next UTC midnight, epoch ms. */
export function budgetResetAtMs(nowMs: number): number {
  return Math.floor(nowMs / DAY_MS) * DAY_MS + DAY_MS;
}

/** "00:00 UTC (in 3 h 12 min)": when a budget resets, absolute and relative, for a user in any time zone. */
export function describeReset(nowMs: number): string {
  const leftMin = Math.max(1, Math.ceil((budgetResetAtMs(nowMs) - nowMs) / 60_000));
  const h = Math.floor(leftMin / 60);
  const m = leftMin % 60;
  const rel = h > 0 ? `${h} h ${m} min` : `${m} min`;
  return `at 00:00 UTC (${new Date(budgetResetAtMs(nowMs)).toISOString().slice(0, 10)}), in ${rel}`;
}

/** Seconds with at most one decimal, for run time. */
export function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${s >= 100 ? Math.round(s) : Math.round(s * 10) / 10} s`;
}
