/** Calendar arithmetic on `YYYY-MM-DD` dates and `YYYY-MM-DD HH:MM` times, in UTC so no time zone shifts a day. */

export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;
export const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

const DAY_MS = 86_400_000;

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** `YYYY-MM-DD` of a year, month (1-12) and day. */
export function isoDate(year: number, month: number, day: number): string {
  return `${year}-${pad(month)}-${pad(day)}`;
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Epoch ms of a date or a `YYYY-MM-DD HH:MM` time, read as UTC. */
export function epochMs(dateOrTime: string): number {
  return Date.parse(`${dateOrTime.replace(' ', 'T')}${dateOrTime.length > 10 ? ':00Z' : 'T00:00:00Z'}`);
}

/** The date `days` after `iso`. */
export function addDays(iso: string, days: number): string {
  return new Date(epochMs(iso) + days * DAY_MS).toISOString().slice(0, 10);
}

/** `YYYY-MM-DD HH:MM` of epoch ms. */
export function timeText(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
}

export function weekdayOf(iso: string): (typeof WEEKDAYS)[number] {
  return WEEKDAYS[new Date(epochMs(iso)).getUTCDay()]!;
}

/** `YYYY-MM` of a date. */
export function monthOf(iso: string): string {
  return iso.slice(0, 7);
}

/** 1-12 of a date. */
export function monthNumber(iso: string): number {
  return Number(iso.slice(5, 7));
}
