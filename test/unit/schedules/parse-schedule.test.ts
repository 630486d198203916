import { describe, expect, it } from 'vitest';
import { describeWhen } from '../../../src/domain/schedule.js';
import { MAX_SCHEDULE_TEXT_CHARS, parseScheduleCommand } from '../../../src/schedules/parse-schedule.js';

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
    expect(error('daily 09:00 x')).toMatch(/starts with `every`/);
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
