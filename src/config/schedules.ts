/** Scheduled reports' bounds (THREADLAB_SCHEDULES, THREADLAB_SCHEDULE_MIN_INTERVAL), read at start-up. */

/** The most schedules one user and one workspace may have; `off`: none may be made, and none fire. */
export type ScheduleLimits = { enabled: false } | { enabled: true; perUser: number; perWorkspace: number };

/** When THREADLAB_SCHEDULES is unset. */
export const DEFAULT_SCHEDULE_LIMITS = { enabled: true, perUser: 5, perWorkspace: 50 } as const;
/** Most schedules per workspace an admin may allow; every schedule is listed when limits are counted. */
export const MAX_SCHEDULES_PER_WORKSPACE = 1000;

const FORMAT = 'expected off, or the most per user and per workspace such as 5/user,50/workspace';

/** `off`, or `N/user,M/workspace` (either part alone keeps the other's default). Throws a message naming the format. */
export function parseScheduleLimits(text: string): ScheduleLimits {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === 'off') return { enabled: false };
  const limits: { enabled: true; perUser: number; perWorkspace: number } = { ...DEFAULT_SCHEDULE_LIMITS };
  const seen = new Set<string>();
  for (const part of trimmed.split(',')) {
    const match = /^\s*(\d{1,6})\s*\/\s*(user|workspace)\s*$/.exec(part);
    if (!match || seen.has(match[2]!)) throw new Error(FORMAT);
    seen.add(match[2]!);
    const n = Number(match[1]);
    if (n < 1 || n > MAX_SCHEDULES_PER_WORKSPACE)
      throw new Error(`expected between 1 and ${MAX_SCHEDULES_PER_WORKSPACE} per ${match[2]} (or off)`);
    if (match[2] === 'user') limits.perUser = n;
    else limits.perWorkspace = n;
  }
  if (limits.perUser > limits.perWorkspace)
    throw new Error(
      `the most per user (${limits.perUser}) cannot exceed the most per workspace (${limits.perWorkspace})`,
    );
  return limits;
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `1h`, `30m`, `10s`, `1d` in ms (at least a second). Throws a message naming the format. */
export function parseMinInterval(text: string): number {
  const match = /^(\d{1,6})([smhd])$/.exec(text.trim());
  const ms = match ? Number(match[1]) * UNIT_MS[match[2]!]! : 0;
  if (ms < 1000) throw new Error('expected a duration with its unit, at least 1s: 30s, 15m, 1h, 1d');
  return ms;
}
