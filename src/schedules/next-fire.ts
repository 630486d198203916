import type { ScheduleWhen } from '../domain/schedule.js';
import { instantOfWallClock, wallClockMs } from './time-zone.js';

const DAY_MS = 86_400_000;

/**
 * The first time after `afterMs` a schedule fires: an interval counts from `anchorMs` (its creation), a wall-clock
 * time is the next matching day's in its time zone. Pure.
 */
export function nextFireMs(when: ScheduleWhen, afterMs: number, anchorMs: number): number {
  if (when.kind === 'every') {
    if (afterMs < anchorMs) return anchorMs + when.everyMs;
    return anchorMs + (Math.floor((afterMs - anchorMs) / when.everyMs) + 1) * when.everyMs;
  }
  const today = wallClockMs(afterMs, when.timeZone);
  const midnight = today - (today % DAY_MS);
  // Eight days cover every weekday once after today's time has passed.
  for (let i = 0; i <= 8; i += 1) {
    const day = midnight + i * DAY_MS;
    if (!when.days.includes(new Date(day).getUTCDay() as never)) continue;
    const at = instantOfWallClock(day + when.hour * 3_600_000 + when.minute * 60_000, when.timeZone);
    if (at > afterMs) return at;
  }
  // Unreachable with at least one day; a safe answer rather than a loop.
  return afterMs + DAY_MS;
}
