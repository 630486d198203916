const DAY_MS = 24 * 60 * 60 * 1000;

/** The UTC date (`YYYY-MM-DD`) of the midnight after `nowMs`: when daily budgets reset. */
export function nextUtcMidnightDay(nowMs = Date.now()): string {
  return new Date((Math.floor(nowMs / DAY_MS) + 1) * DAY_MS).toISOString().slice(0, 10);
}

/**
 * Tests of a shipped process count daily budgets on the real clock, so a test that crossed midnight UTC
 * would see its spend reset half-way. When fewer than `needMs` are left in the UTC day, this waits until
 * the new day has begun (at most `needMs`), so the test runs inside one day whenever CI runs it.
 */
export async function withinOneUtcDay(needMs: number, nowMs: () => number = Date.now): Promise<void> {
  const leftMs = DAY_MS - (nowMs() % DAY_MS);
  if (leftMs >= needMs) return;
  process.stderr.write(`[test] ${Math.ceil(leftMs / 1000)} s to midnight UTC: waiting for the new day\n`);
  await new Promise((resolve) => setTimeout(resolve, leftMs + 1_000));
}
