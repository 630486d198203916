import type { InboundUser } from './messages.js';
import type { ThreadRef } from './thread-key.js';

/** Days of the week as `Date.getUTCDay` counts them: 0 is Sunday. */
export type Weekday = 0 | 1 | 2 | 3 | 4 | 5 | 6;

/**
 * When a schedule fires: at a fixed interval from its creation, or at a wall-clock time on some days of the week in
 * a time zone (an IANA name Intl knows). Plain data: it crosses Redis.
 */
export type ScheduleWhen =
  | { kind: 'every'; everyMs: number }
  | { kind: 'at'; hour: number; minute: number; days: readonly Weekday[]; timeZone: string };

/** What a firing does: re-run the thread's notebook (its recorded code, in order) or ask a question anew. */
export type ScheduleTask = { kind: 'rerun' } | { kind: 'ask'; text: string };

/** A schedule of a thread, made by its creator, whose access, budget and audit line every firing carries. */
export interface Schedule {
  /** Unique across the deployment (the job scheduler's id with Redis). */
  id: string;
  threadKey: string;
  thread: ThreadRef;
  creator: InboundUser;
  when: ScheduleWhen;
  task: ScheduleTask;
  createdAtMs: number;
}

/** A job's origin when no person sent its message just now: a schedule fired it, for its creator. */
export interface JobOrigin {
  kind: 'schedule';
  scheduleId: string;
  /** When it fires, as said back to users (`every day 09:00 (UTC)`), for the reply's first line. */
  label: string;
}

/** Day names and their short forms, lower case, as schedules are written. */
const DAYS: Record<string, Weekday> = {
  sun: 0,
  sunday: 0,
  mon: 1,
  monday: 1,
  tue: 2,
  tues: 2,
  tuesday: 2,
  wed: 3,
  wednesday: 3,
  thu: 4,
  thur: 4,
  thurs: 4,
  thursday: 4,
  fri: 5,
  friday: 5,
  sat: 6,
  saturday: 6,
};
/** Every day of the week. */
export const ALL_DAYS: Weekday[] = [0, 1, 2, 3, 4, 5, 6];
const WEEKDAYS: Weekday[] = [1, 2, 3, 4, 5];

/** The words a schedule command starts with, besides a day and `TZ=` (lower case). */
export const SCHEDULE_LEADS: ReadonlySet<string> = new Set([
  'every',
  'each',
  'daily',
  'hourly',
  'weekly',
  'list',
  'cancel',
]);

/** `day`, `weekday(s)`, `weekend(s)`, `monday`, `mondays`, `mon,wed,fri` (lower case); undefined for other words. */
export function daysOf(word: string): Weekday[] | undefined {
  if (word === 'day') return [...ALL_DAYS];
  if (word === 'weekday' || word === 'weekdays') return [...WEEKDAYS];
  if (word === 'weekend' || word === 'weekends') return [0, 6];
  const names = word.split(',');
  if (names.length > 7) return undefined;
  const days = new Set<Weekday>();
  for (const name of names) {
    const day = Object.hasOwn(DAYS, name)
      ? DAYS[name]
      : Object.hasOwn(DAYS, name.replace(/s$/, ''))
        ? DAYS[name.replace(/s$/, '')]
        : undefined;
    if (day === undefined) return undefined;
    days.add(day);
  }
  return [...days].sort();
}

/**
 * Whether the text after a bare `schedule` reads as the command: its first word is one a schedule starts with
 * (`every`, `daily`, `hourly`, `weekly`, a day such as `weekdays` or `monday`, `list`, `cancel`, `TZ=`). So
 * "schedule a meeting" stays a question, while "schedule daily 9am" that does not parse is answered with the
 * syntax. The grammar itself is `parseScheduleCommand`'s. Pure.
 */
export function startsLikeSchedule(text: string): boolean {
  const first = (/^\S*/.exec(text.trimStart())?.[0] ?? '').toLowerCase().replace(/,$/, '');
  if (first === '' || first === 'day') return false;
  return SCHEDULE_LEADS.has(first) || /^tz=/.test(first) || daysOf(first) !== undefined;
}

const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

/** `every monday 08:30 (Europe/Paris)`, `every 6h`: how a schedule's timing is said back to users. */
export function describeWhen(when: ScheduleWhen): string {
  if (when.kind === 'every') return `every ${describeInterval(when.everyMs)}`;
  const time = `${String(when.hour).padStart(2, '0')}:${String(when.minute).padStart(2, '0')}`;
  const days = [...when.days].sort();
  const which =
    days.length === 7 ? 'day' : days.join(',') === '1,2,3,4,5' ? 'weekday' : days.map((d) => DAY_NAMES[d]).join(', ');
  return `every ${which} ${time} (${when.timeZone})`;
}

/** `6h`, `30m`, `1d 2h`, `45s`: an interval in the largest whole units. */
export function describeInterval(ms: number): string {
  const units: [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ];
  const parts: string[] = [];
  let rest = ms;
  for (const [name, size] of units) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${name}`);
    rest -= n * size;
  }
  return parts.join(' ') || `${ms}ms`;
}

/** What a firing does, said briefly (a question is cut to 80 characters). */
export function describeTask(task: ScheduleTask): string {
  if (task.kind === 'rerun') return "re-run this thread's notebook";
  const text = task.text.length > 80 ? `${task.text.slice(0, 79)}…` : task.text;
  return `ask “${text}”`;
}

/** Whether `value` is a Schedule (one read back from a store is a claim). */
export function isSchedule(value: unknown): value is Schedule {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Partial<Schedule>;
  return (
    typeof s.id === 'string' &&
    typeof s.threadKey === 'string' &&
    typeof s.thread === 'object' &&
    s.thread !== null &&
    typeof s.creator?.id === 'string' &&
    typeof s.createdAtMs === 'number' &&
    isWhen(s.when) &&
    isTask(s.task)
  );
}

function isWhen(value: unknown): value is ScheduleWhen {
  const w = value as {
    kind?: unknown;
    everyMs?: unknown;
    hour?: unknown;
    minute?: unknown;
    days?: unknown;
    timeZone?: unknown;
  };
  if (typeof value !== 'object' || value === null) return false;
  if (w.kind === 'every') return typeof w.everyMs === 'number' && w.everyMs > 0;
  return (
    w.kind === 'at' &&
    Number.isInteger(w.hour) &&
    Number.isInteger(w.minute) &&
    Array.isArray(w.days) &&
    w.days.length > 0 &&
    w.days.every((d: unknown) => Number.isInteger(d) && (d as number) >= 0 && (d as number) <= 6) &&
    typeof w.timeZone === 'string'
  );
}

function isTask(value: unknown): value is ScheduleTask {
  const t = value as { kind?: unknown; text?: unknown };
  if (typeof value !== 'object' || value === null) return false;
  return t.kind === 'rerun' || (t.kind === 'ask' && typeof t.text === 'string');
}
