import { describe, expect, it } from 'vitest';
import { describeWhen, startsLikeSchedule } from '../../../src/domain/schedule.js';
import {
  makesQuestionSchedule,
  MAX_SCHEDULE_TEXT_CHARS,
  parseScheduleCommand,
  SCHEDULE_USAGE,
} from '../../../src/schedules/parse-schedule.js';

const create = (text: string, zone?: string) => {
  const parsed = parseScheduleCommand(text, zone);
  if (parsed.kind !== 'create') throw new Error(`not a create: ${JSON.stringify(parsed)}`);
  return parsed;
};
const error = (text: string): string => {
  const parsed = parseScheduleCommand(text);
  if (parsed.kind !== 'invalid') throw new Error(`not invalid: ${JSON.stringify(parsed)}`);
  return parsed.error;
};

const EVERY_DAY = [0, 1, 2, 3, 4, 5, 6];
const WEEKDAYS = [1, 2, 3, 4, 5];

/** How people write when, what each means, and how it is said back (the task after it is always `report`). */
const WORDINGS: [string, object, string][] = [
  ['daily 09:00', { kind: 'at', hour: 9, minute: 0, days: EVERY_DAY }, 'every day 09:00 (UTC)'],
  ['daily at 9am', { kind: 'at', hour: 9, minute: 0, days: EVERY_DAY }, 'every day 09:00 (UTC)'],
  ['every day at 9am', { kind: 'at', hour: 9, minute: 0, days: EVERY_DAY }, 'every day 09:00 (UTC)'],
  ['every day at 9 am', { kind: 'at', hour: 9, minute: 0, days: EVERY_DAY }, 'every day 09:00 (UTC)'],
  ['each day 9:30pm', { kind: 'at', hour: 21, minute: 30, days: EVERY_DAY }, 'every day 21:30 (UTC)'],
  ['every weekday at 9am', { kind: 'at', hour: 9, minute: 0, days: WEEKDAYS }, 'every weekday 09:00 (UTC)'],
  ['every weekday 07:00', { kind: 'at', hour: 7, minute: 0, days: WEEKDAYS }, 'every weekday 07:00 (UTC)'],
  ['weekdays at 8:15 a.m.', { kind: 'at', hour: 8, minute: 15, days: WEEKDAYS }, 'every weekday 08:15 (UTC)'],
  ['every monday 8:30', { kind: 'at', hour: 8, minute: 30, days: [1] }, 'every monday 08:30 (UTC)'],
  ['monday at 8:30', { kind: 'at', hour: 8, minute: 30, days: [1] }, 'every monday 08:30 (UTC)'],
  ['every mondays at noon', { kind: 'at', hour: 12, minute: 0, days: [1] }, 'every monday 12:00 (UTC)'],
  [
    'every mon, wed and fri at 5pm',
    { kind: 'at', hour: 17, minute: 0, days: [1, 3, 5] },
    'every monday, wednesday, friday 17:00 (UTC)',
  ],
  [
    'every tuesday and thursday 18:00',
    { kind: 'at', hour: 18, minute: 0, days: [2, 4] },
    'every tuesday, thursday 18:00 (UTC)',
  ],
  ['every weekend at midnight', { kind: 'at', hour: 0, minute: 0, days: [0, 6] }, 'every sunday, saturday 00:00 (UTC)'],
  ['every sunday at 12am', { kind: 'at', hour: 0, minute: 0, days: [0] }, 'every sunday 00:00 (UTC)'],
  ['weekly on friday at 17:00', { kind: 'at', hour: 17, minute: 0, days: [5] }, 'every friday 17:00 (UTC)'],
  ['weekly friday 5:00pm', { kind: 'at', hour: 17, minute: 0, days: [5] }, 'every friday 17:00 (UTC)'],
  ['Weekly On Friday At 5PM', { kind: 'at', hour: 17, minute: 0, days: [5] }, 'every friday 17:00 (UTC)'],
  ['hourly', { kind: 'every', everyMs: 3_600_000 }, 'every 1h'],
  ['every hour', { kind: 'every', everyMs: 3_600_000 }, 'every 1h'],
  ['every 2 hours', { kind: 'every', everyMs: 7_200_000 }, 'every 2h'],
  ['every 15 minutes', { kind: 'every', everyMs: 900_000 }, 'every 15m'],
  ['every 30m', { kind: 'every', everyMs: 1_800_000 }, 'every 30m'],
  ['every 3 days', { kind: 'every', everyMs: 3 * 86_400_000 }, 'every 3d'],
];

describe('the schedule grammar: common wordings', () => {
  it.each(WORDINGS)('%s', (when, expected, said) => {
    for (const sep of [' ', ': ', ' — ']) {
      const parsed = create(`${when}${sep}report`);
      expect(parsed.when).toMatchObject(expected);
      expect(parsed.task).toEqual({ kind: 'ask', text: 'report' });
      expect(describeWhen(parsed.when)).toBe(said);
    }
    // A bare `schedule` before it is the command, never a question for the model.
    expect(startsLikeSchedule(`${when} report`)).toBe(true);
  });

  it('reads as the command only what starts like a schedule', () => {
    for (const text of ['daily standup notes', 'every funday 9am x', 'weekly', 'list', 'cancel', 'TZ=UTC daily 9am x'])
      expect(startsLikeSchedule(text)).toBe(true);
    for (const text of ['a meeting with Bob', 'the report for me', 'day trip', '', '   ', 'at 9am daily x'])
      expect(startsLikeSchedule(text)).toBe(false);
  });

  it('answers what does not parse with the syntax and an example', () => {
    const text = error('daily standup notes');
    expect(text).toContain(SCHEDULE_USAGE);
    expect(SCHEDULE_USAGE).toMatch(/For example: `schedule every weekday at 9am [^`]+`/);
    // The usage's own examples parse.
    for (const example of SCHEDULE_USAGE.match(/`schedule [^`]+`/g)!) {
      const body = example.slice('`schedule '.length, -1).replace(/<question>|…/, 'report');
      expect(parseScheduleCommand(body).kind, example).not.toBe('invalid');
    }
  });

  it('says which slash schedules can live in a new thread of their own (a question, not a re-run)', () => {
    expect(makesQuestionSchedule('daily 9am how are sales?')).toBe(true);
    expect(makesQuestionSchedule('every 2 hours rerun')).toBe(false);
    expect(makesQuestionSchedule('list')).toBe(false);
    expect(makesQuestionSchedule('daily sometime')).toBe(false);
  });

  it('reads cancel #N as cancel N', () => {
    expect(parseScheduleCommand('cancel #2')).toEqual({ kind: 'cancel', number: 2 });
  });
});

describe('parseScheduleCommand', () => {
  it('reads daily, weekly and weekday times with the default zone', () => {
    expect(create('every day 09:00 How many orders yesterday?')).toEqual({
      kind: 'create',
      when: { kind: 'at', hour: 9, minute: 0, days: [0, 1, 2, 3, 4, 5, 6], timeZone: 'UTC' },
      task: { kind: 'ask', text: 'How many orders yesterday?' },
    });
    expect(create('every monday 8:30 rerun', 'America/New_York').when).toEqual({
      kind: 'at',
      hour: 8,
      minute: 30,
      days: [1],
      timeZone: 'America/New_York',
    });
    expect(create('Every Weekday 07:00 rerun').when).toMatchObject({ days: [1, 2, 3, 4, 5], hour: 7 });
    expect(create('every mon,wed,fri 17:45 rerun').when).toMatchObject({ days: [1, 3, 5], minute: 45 });
    expect(create('every sundays 23:59 rerun').when).toMatchObject({ days: [0], hour: 23, minute: 59 });
  });

  it('reads intervals in every spelling, and rerun in any case', () => {
    expect(create('every 6h rerun')).toEqual({
      kind: 'create',
      when: { kind: 'every', everyMs: 6 * 3_600_000 },
      task: { kind: 'rerun' },
    });
    expect(create('every 30m RERUN').when).toEqual({ kind: 'every', everyMs: 1_800_000 });
    expect(create('every 2 hours x').when).toEqual({ kind: 'every', everyMs: 7_200_000 });
    expect(create('every 5s x').when).toEqual({ kind: 'every', everyMs: 5000 });
    expect(create('every hour x').when).toEqual({ kind: 'every', everyMs: 3_600_000 });
    expect(create('every 2d x').when).toEqual({ kind: 'every', everyMs: 2 * 86_400_000 });
  });

  it('takes TZ= before or after the time, canonicalised by Intl, and keeps the question as written', () => {
    expect(create('TZ=Europe/Paris every day 09:00 rerun').when).toMatchObject({ timeZone: 'Europe/Paris' });
    expect(create('every day 09:00 TZ=asia/tokyo  what   is  up ', 'Europe/Paris')).toEqual({
      kind: 'create',
      when: { kind: 'at', hour: 9, minute: 0, days: [0, 1, 2, 3, 4, 5, 6], timeZone: 'Asia/Tokyo' },
      task: { kind: 'ask', text: 'what   is  up' },
    });
    expect(create('every day 09:00 tz=utc rerun').when).toMatchObject({ timeZone: 'UTC' });
  });

  it('reads list and cancel N', () => {
    expect(parseScheduleCommand('list')).toEqual({ kind: 'list' });
    expect(parseScheduleCommand('  LIST ')).toEqual({ kind: 'list' });
    expect(parseScheduleCommand('cancel 3')).toEqual({ kind: 'cancel', number: 3 });
    expect(error('cancel')).toMatch(/by its number/);
    expect(error('cancel 0')).toMatch(/by its number/);
    expect(error('cancel -1')).toMatch(/by its number/);
    expect(error('cancel 1 2')).toMatch(/by its number/);
    expect(error('cancel 99999')).toMatch(/by its number/);
  });

  it('says what is wrong with bad times, days, intervals and zones', () => {
    expect(error('')).toMatch(/Say when/);
    expect(error('yearly 09:00 x')).toMatch(/is not a day or an interval|starts with `every`/);
    expect(error('daily x')).toMatch(/Give a time of day[\s\S]*`daily 09:00`/);
    expect(error('every weekday at 13pm x')).toMatch(/Give a time of day/);
    expect(error('every weekday at 0am x')).toMatch(/Give a time of day/);
    expect(error('weekly 09:00 x')).toMatch(/Say which day/);
    expect(error('weekly on day 09:00 x')).toMatch(/Say which day/);
    expect(error('every 2 days at 9am x')).toMatch(/takes no time of day/);
    expect(error('hourly at 9am x')).toMatch(/takes no time of day/);
    expect(error('every monday and 09:00 x')).toMatch(/not a day/);
    expect(error('every day 25:00 x')).toMatch(/HH:MM/);
    expect(error('every day 9:60 x')).toMatch(/HH:MM/);
    expect(error('every day 9 x')).toMatch(/HH:MM/);
    expect(error('every day 09:00')).toMatch(/Say what to do/);
    expect(error('every funday 09:00 x')).toMatch(/not a day or an interval/);
    expect(error('every 6 x')).toMatch(/needs its unit/);
    expect(error('every 6y x')).toMatch(/needs its unit/);
    expect(error('every 0h x')).toMatch(/longer than zero/);
    expect(error('every 9999999d x')).toMatch(/at most a year/);
    expect(error('every day 09:00 TZ=Mars/Olympus x')).toMatch(/Unknown time zone `Mars\/Olympus`/);
    expect(error('TZ=Europe/Paris every 6h x')).toMatch(/only applies to a time of day/);
    expect(error('TZ=UTC every day 09:00 TZ=UTC x')).toMatch(/once/);
    // Each error also says how to use the command.
    expect(error('every')).toContain('schedule list');
  });

  it('refuses hostile input without throwing', () => {
    expect(error('x'.repeat(MAX_SCHEDULE_TEXT_CHARS + 1))).toMatch(/at most 4000/);
    expect(error('every day 09:00 TZ=../../../etc/passwd x')).toMatch(/Unknown time zone/);
    expect(error('every day 09:00 TZ=Europe/Paris\u0000 x')).toMatch(/Unknown time zone/);
    expect(error(`every day 09:00 TZ=${'A'.repeat(500)} x`)).toMatch(/Unknown time zone/);
    expect(error('every day ０９:００ x')).toMatch(/HH:MM/); // full-width digits are not digits here
    expect(error('every ٦h x')).toMatch(/not a day or an interval/);
    expect(error('every __proto__ 09:00 x')).toMatch(/not a day/);
    expect(error('every constructor 09:00 x')).toMatch(/not a day/);
    expect(error(`every ${'mon,'.repeat(100)}mon 09:00 x`)).toMatch(/not a day/);
    expect(error('every 1e3h x')).toMatch(/needs its unit|not a day/);
    expect(error('every 99999999999999999999h x')).toMatch(/not a day or an interval/);
    expect(error('cancel 1e2')).toMatch(/by its number/);
    expect(error('every\nday\n09:00')).toMatch(/Say what to do/);
  });

  it('describes what it parsed back', () => {
    expect(describeWhen(create('every weekday 07:05 x', 'Europe/Paris').when)).toBe(
      'every weekday 07:05 (Europe/Paris)',
    );
    expect(describeWhen(create('every tue,thu 18:00 x').when)).toBe('every tuesday, thursday 18:00 (UTC)');
    expect(describeWhen(create('every 90m x').when)).toBe('every 1h 30m');
  });
});
