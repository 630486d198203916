import type { ScheduleTask, ScheduleWhen, Weekday } from '../domain/schedule.js';
import { canonicalTimeZone } from './time-zone.js';

/** What the text after `schedule` asks for, or what is wrong with it (a sentence for the user). */
export type ScheduleCommand =
  | { kind: 'list' }
  | { kind: 'cancel'; number: number }
  | { kind: 'create'; when: ScheduleWhen; task: ScheduleTask }
  | { kind: 'invalid'; error: string };

/** Longest text after `schedule`, in characters; a scheduled question is asked again and again. */
export const MAX_SCHEDULE_TEXT_CHARS = 4000;
/** Longest interval: a year. */
export const MAX_INTERVAL_MS = 366 * 86_400_000;

export const SCHEDULE_USAGE =
  'Usage: `schedule every day 09:00 <question>`, `schedule every monday 08:30 rerun`, `schedule every weekday 07:00 …`, ' +
  '`schedule every 6h …` (add `TZ=Europe/Paris` for another time zone), `schedule list`, `schedule cancel 2`.';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const UNIT_WORDS: Record<string, string> = {
  s: 's',
  sec: 's',
  secs: 's',
  second: 's',
  seconds: 's',
  m: 'm',
  min: 'm',
  mins: 'm',
  minute: 'm',
  minutes: 'm',
  h: 'h',
  hr: 'h',
  hrs: 'h',
  hour: 'h',
  hours: 'h',
  d: 'd',
  day: 'd',
  days: 'd',
};
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
const ALL_DAYS: Weekday[] = [0, 1, 2, 3, 4, 5, 6];
const WEEKDAYS: Weekday[] = [1, 2, 3, 4, 5];

/** A cursor over the text: words are taken from the front; what is left is the task, spacing kept. */
class Words {
  constructor(private rest: string) {}
  peek(): string {
    return /^\S*/.exec(this.rest)![0];
  }
  take(): string {
    const word = this.peek();
    this.rest = this.rest.slice(word.length).replace(/^\s+/, '');
    return word;
  }
  remaining(): string {
    return this.rest;
  }
}

/**
 * Parses the text after `schedule` (`every day 09:00 <question>`, `every 6h rerun`, `list`, `cancel 2`).
 * `defaultTimeZone` applies to wall-clock times without `TZ=` (the user's own zone, else UTC). Pure; never throws.
 */
export function parseScheduleCommand(raw: string, defaultTimeZone = 'UTC'): ScheduleCommand {
  if (raw.length > MAX_SCHEDULE_TEXT_CHARS)
    return invalid(`That is ${raw.length} characters; a schedule takes at most ${MAX_SCHEDULE_TEXT_CHARS}.`);
  const words = new Words(raw.trim());
  const first = words.take().toLowerCase();
  if (first === 'list' && words.remaining() === '') return { kind: 'list' };
  if (first === 'cancel') {
    const n = words.take();
    if (!/^\d{1,4}$/.test(n) || Number(n) < 1 || words.remaining() !== '')
      return invalid('Say which schedule to cancel by its number in `schedule list`, e.g. `schedule cancel 2`.');
    return { kind: 'cancel', number: Number(n) };
  }
  let zone: string | undefined;
  let word = first;
  if (isZoneWord(word)) {
    const z = zoneOf(word);
    if (typeof z !== 'string') return z;
    zone = z;
    word = words.take().toLowerCase();
  }
  if (word !== 'every') return invalid(word === '' ? 'Say when.' : `A schedule starts with \`every\`.`);
  const when = parseWhen(words, zone ?? defaultTimeZone);
  if ('error' in when) return invalid(when.error);
  if (isZoneWord(words.peek())) {
    if (zone !== undefined) return invalid('Give the time zone once.');
    const z = zoneOf(words.take());
    if (typeof z !== 'string') return z;
    zone = z;
    if (when.kind === 'at') when.timeZone = z;
  }
  if (zone !== undefined && when.kind === 'every')
    return invalid(
      'A time zone only applies to a time of day (`every day 09:00 TZ=Europe/Paris`), not to an interval.',
    );
  const text = words.remaining().trim();
  if (text === '') return invalid('Say what to do each time: a question, or `rerun` to re-run this thread’s notebook.');
  const task: ScheduleTask = text.toLowerCase() === 'rerun' ? { kind: 'rerun' } : { kind: 'ask', text };
  return { kind: 'create', when, task };
}

function invalid(error: string): ScheduleCommand {
  return { kind: 'invalid', error: `${error}\n${SCHEDULE_USAGE}` };
}

function isZoneWord(word: string): boolean {
  return /^tz=/i.test(word);
}

function zoneOf(word: string): string | ScheduleCommand {
  const name = word.slice(3);
  const zone = canonicalTimeZone(name);
  if (!zone)
    return invalid(
      `Unknown time zone \`${name.slice(0, 64)}\`: use an IANA name such as \`Europe/Paris\`, \`America/New_York\` or \`UTC\`.`,
    );
  return zone;
}

function parseWhen(words: Words, timeZone: string): ScheduleWhen | { error: string } {
  const word = words.take().toLowerCase();
  // `every 6h`, `every 6 hours`, `every 30m`
  const joined = /^(\d{1,7})([a-z]*)$/.exec(word);
  if (joined) {
    const unit = joined[2] !== '' ? UNIT_WORDS[joined[2]!] : UNIT_WORDS[words.peek().toLowerCase()];
    if (!unit) return { error: 'An interval needs its unit: `every 30m`, `every 6h`, `every 2d`.' };
    if (joined[2] === '') words.take();
    const everyMs = Number(joined[1]) * UNIT_MS[unit]!;
    if (everyMs <= 0) return { error: 'An interval must be longer than zero.' };
    if (everyMs > MAX_INTERVAL_MS) return { error: 'An interval can be at most a year (366 days).' };
    return { kind: 'every', everyMs };
  }
  if (word === 'hour') return { kind: 'every', everyMs: UNIT_MS.h! };
  const days = daysOf(word);
  if (!days) return { error: `\`${word.slice(0, 40)}\` is not a day or an interval.` };
  const time = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(words.take());
  if (!time) return { error: 'Give a time of day as HH:MM on a 24-hour clock, e.g. `09:00` or `17:30`.' };
  return { kind: 'at', hour: Number(time[1]), minute: Number(time[2]), days, timeZone };
}

/** `day`, `weekday(s)`, `monday`, `mondays`, `mon,wed,fri`. */
function daysOf(word: string): Weekday[] | undefined {
  if (word === 'day') return ALL_DAYS;
  if (word === 'weekday' || word === 'weekdays') return WEEKDAYS;
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
