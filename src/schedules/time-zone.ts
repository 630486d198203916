/**
 * Time zones through Intl only: a zone is whatever IANA name Node's Intl knows, and wall-clock times are
 * read and made with its formatter. Pure apart from a bounded cache of formatters.
 */

/** Longest time zone name accepted (the longest IANA name is 32 characters). */
const MAX_ZONE_CHARS = 64;
/** Formatters kept, one per zone; past it the oldest is dropped. */
const MAX_CACHED_ZONES = 256;
const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's canonical name (`utc` → `UTC`), or undefined when Intl does not know it. */
export function canonicalTimeZone(zone: string): string | undefined {
  if (zone.length > MAX_ZONE_CHARS || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    if (formatters.size >= MAX_CACHED_ZONES) formatters.delete(formatters.keys().next().value!);
    formatters.set(zone, f);
  }
  return f;
}

/** The wall clock in `zone` at instant `ms`, as if it were UTC (so Date.UTC arithmetic works on it). */
export function wallClockMs(ms: number, zone: string): number {
  const parts: Record<string, number> = {};
  for (const p of formatter(zone).formatToParts(new Date(ms)))
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
}

/**
 * The instant whose wall clock in `zone` is `wallMs` (a Date.UTC of the local date and time). A wall time a
 * daylight-saving change skips resolves to an instant beside it, as clocks that moved forward show.
 */
export function instantOfWallClock(wallMs: number, zone: string): number {
  const offset1 = wallClockMs(wallMs, zone) - wallMs;
  const guess = wallMs - offset1;
  const offset2 = wallClockMs(guess, zone) - guess;
  return wallMs - offset2;
}
