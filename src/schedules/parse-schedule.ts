import {
  ALL_DAYS,
  daysOf,
  SCHEDULE_LEADS,
  type ScheduleTask,
  type ScheduleWhen,
  type Weekday,
} from '../domain/schedule.js';
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

/** The command's syntax with examples, said with every error and wherever a schedule does not parse. */
export const SCHEDULE_USAGE =
  'Usage: `schedule daily 09:00 <question>`, `schedule every weekday at 9am …`, `schedule every monday 8:30 rerun`, ' +
  '`schedule weekly on friday at 17:00 …`, `schedule hourly …`, `schedule every 2 hours …` (add `TZ=Europe/Paris` for ' +
  'another time zone), `schedule list`, `schedule cancel 2`. For example: `schedule every weekday at 9am how were yesterday’s sales?`';

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
 * Parses the text after `schedule`: `daily 09:00 <question>`, `every weekday at 9am …`, `every monday 8:30 rerun`,
 * `weekly on friday at 17:00 …`, `hourly …`, `every 2 hours …`, `list`, `cancel 2`, with `TZ=<zone>` before or after
 * the time. `defaultTimeZone` applies to wall-clock times without `TZ=` (the user's own zone, else UTC). The one
 * grammar of schedules: every surface's typed, slash and option forms end here. Pure; never throws.
 */
export function parseScheduleCommand(raw: string, defaultTimeZone = 'UTC'): ScheduleCommand {
  if (raw.length > MAX_SCHEDULE_TEXT_CHARS)
    return invalid(`That is ${raw.length} characters; a schedule takes at most ${MAX_SCHEDULE_TEXT_CHARS}.`);
  const words = new Words(raw.trim());
  const first = words.peek().toLowerCase();
  if (first === 'list' && words.remaining().toLowerCase() === 'list') return { kind: 'list' };
  if (first === 'cancel') {
    words.take();
    const n = words.take().replace(/^#/, '');
    if (!/^\d{1,4}$/.test(n) || Number(n) < 1 || words.remaining() !== '')
      return invalid('Say which schedule to cancel by its number in `schedule list`, e.g. `schedule cancel 2`.');
    return { kind: 'cancel', number: Number(n) };
  }
  let zone: string | undefined;
  if (isZoneWord(first)) {
    const z = zoneOf(words.take());
    if (typeof z !== 'string') return z;
    zone = z;
  }
  if (words.peek() === '') return invalid('Say when.');
  const when = parseWhen(words, zone ?? defaultTimeZone);
  if ('error' in when) return invalid(when.error);
  if (isZoneWord(words.peek())) {
    if (zone !== undefined) return invalid('Give the time zone once.');
    const z = zoneOf(words.take());
    if (typeof z !== 'string') return z;
    zone = z;
    if (when.kind === 'at') when.timeZone = z;
  }
  if (when.kind === 'every' && bare(words.peek()) === 'at')
    return invalid(
      'An interval counts from when the schedule is made, so it takes no time of day: `every 2 hours …`, or `daily 09:00 …` for a time.',
    );
  if (zone !== undefined && when.kind === 'every')
    return invalid('A time zone only applies to a time of day (`daily 09:00 TZ=Europe/Paris`), not to an interval.');
  // `daily 09:00: how are sales?` — a separator after the time is not part of the question.
  const text = words
    .remaining()
    .replace(/^[:,;–—-]+\s*/, '')
    .trim();
  if (text === '') return invalid('Say what to do each time: a question, or `rerun` to re-run this thread’s notebook.');
  const task: ScheduleTask = text.toLowerCase() === 'rerun' ? { kind: 'rerun' } : { kind: 'ask', text };
  return { kind: 'create', when, task };
}

/** Whether `text` (after `schedule`) makes a schedule that asks a question: it can live in a new thread of its own. */
export function makesQuestionSchedule(text: string): boolean {
  const parsed = parseScheduleCommand(text);
  return parsed.kind === 'create' && parsed.task.kind === 'ask';
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

type When = ScheduleWhen | { error: string };

function parseWhen(words: Words, timeZone: string): When {
  const lead = bare(words.take());
  if (lead === 'hourly') return { kind: 'every', everyMs: UNIT_MS.h! };
  if (lead === 'daily') return atTime(words, ALL_DAYS, timeZone, 'daily');
  if (lead === 'weekly') {
    if (words.peek().toLowerCase() === 'on') words.take();
    const days = takeDays(words, words.take().toLowerCase());
    if (!days || days.length === 7)
      return { error: 'Say which day: `weekly on friday at 17:00`, `weekly monday 08:30`.' };
    return atTime(words, days, timeZone, 'weekly on friday');
  }
  // `every`/`each` may be left out before days: `weekdays at 9am`, `monday 8:30`.
  const word =
    lead === 'every' || lead === 'each'
      ? words
          .take()
          .toLowerCase()
          .replace(/[:;]+$/, '')
      : lead;
  if (!SCHEDULE_LEADS.has(lead) && daysOf(word.replace(/,$/, '')) === undefined)
    return { error: `A schedule starts with \`every\`, \`daily\`, \`weekly\` or \`hourly\`.` };
  // `every 6h`, `every 6 hours`, `every 30m`
  const joined = /^(\d{1,7})([a-z]*)$/.exec(bare(word));
  if (joined) {
    const named = joined[2] !== '' ? joined[2]! : bare(words.peek());
    const unit = Object.hasOwn(UNIT_WORDS, named) ? UNIT_WORDS[named] : undefined;
    if (!unit) return { error: 'An interval needs its unit: `every 30m`, `every 6h`, `every 2 hours`.' };
    if (joined[2] === '') words.take();
    const everyMs = Number(joined[1]) * UNIT_MS[unit]!;
    if (everyMs <= 0) return { error: 'An interval must be longer than zero.' };
    if (everyMs > MAX_INTERVAL_MS) return { error: 'An interval can be at most a year (366 days).' };
    return { kind: 'every', everyMs };
  }
  if (['hour', 'minute', 'second'].includes(bare(word)))
    return { kind: 'every', everyMs: UNIT_MS[UNIT_WORDS[bare(word)]!]! };
  const days = takeDays(words, word);
  if (!days) return { error: `\`${word.slice(0, 40)}\` is not a day or an interval.` };
  return atTime(words, days, timeZone, `every ${word.replace(/,$/, '').slice(0, 20)}`);
}

/** A word in lower case without the separator that may follow it (`09:00:`, `hourly,`). */
function bare(word: string): string {
  return word.toLowerCase().replace(/[:;,]+$/, '');
}

/** The time of day after the days (`09:00`, `at 9am`, `8:30 pm`, `noon`), for a schedule `example` starts. */
function atTime(words: Words, days: Weekday[], timeZone: string, example: string): When {
  if (words.peek().toLowerCase() === 'at') words.take();
  let word = bare(words.take());
  if (/^\d{1,2}(:\d{2})?$/.test(word) && /^[ap]\.?m\.?$/.test(bare(words.peek()))) word += bare(words.take());
  const time = timeOfDay(word);
  if (!time)
    return {
      error: `Give a time of day as HH:MM on a 24-hour clock or with am/pm: \`${example} 09:00\`, \`${example} at 5:30pm\`.`,
    };
  return { kind: 'at', ...time, days, timeZone };
}

/** `09:00`, `17:30`, `9am`, `9:30pm`, `12am` (midnight), `noon`, `midnight`; undefined for anything else. */
export function timeOfDay(word: string): { hour: number; minute: number } | undefined {
  if (word === 'noon') return { hour: 12, minute: 0 };
  if (word === 'midnight') return { hour: 0, minute: 0 };
  const clock = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(word);
  if (clock) return { hour: Number(clock[1]), minute: Number(clock[2]) };
  const ampm = /^(1[0-2]|0?[1-9])(?::([0-5]\d))?([ap])\.?m\.?$/.exec(word);
  if (!ampm) return undefined;
  const hour = (Number(ampm[1]) % 12) + (ampm[3] === 'p' ? 12 : 0);
  return { hour, minute: Number(ampm[2] ?? 0) };
}

/** Days from `word` on: `monday`, `mon,wed,fri`, `mon, wed`, `monday and friday`, `weekdays`, `day`. */
function takeDays(words: Words, word: string): Weekday[] | undefined {
  const found = new Set<Weekday>();
  let current = word;
  for (let i = 0; i < 7; i++) {
    const more = current.endsWith(',');
    const days = daysOf(current.replace(/,$/, ''));
    if (!days) return undefined;
    for (const d of days) found.add(d);
    const next = words.peek().toLowerCase();
    if (next === 'and' || next === '&') {
      words.take();
    } else if (!more) {
      return [...found].sort();
    }
    current = words.take().toLowerCase();
  }
  return undefined;
}
