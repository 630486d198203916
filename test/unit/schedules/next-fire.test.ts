import { describe, expect, it } from 'vitest';
import { nextFireMs } from '../../../src/schedules/next-fire.js';
import { canonicalTimeZone } from '../../../src/schedules/time-zone.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const daily = (hour: number, minute: number, timeZone: string) =>
  ({ kind: 'at', hour, minute, days: [0, 1, 2, 3, 4, 5, 6], timeZone }) as const;

describe('nextFireMs', () => {
  it('counts intervals from the anchor', () => {
    const anchor = at('2026-01-01T00:00:00Z');
    const when = { kind: 'every', everyMs: 6 * 3_600_000 } as const;
    expect(iso(nextFireMs(when, anchor, anchor))).toBe('2026-01-01T06:00:00.000Z');
    expect(iso(nextFireMs(when, at('2026-01-01T06:00:00Z'), anchor))).toBe('2026-01-01T12:00:00.000Z');
    expect(iso(nextFireMs(when, at('2026-01-03T13:59:00Z'), anchor))).toBe('2026-01-03T18:00:00.000Z');
  });

  it('fires at the wall-clock time in the zone, today or tomorrow', () => {
    expect(iso(nextFireMs(daily(9, 0, 'UTC'), at('2026-03-10T08:59:00Z'), 0))).toBe('2026-03-10T09:00:00.000Z');
    expect(iso(nextFireMs(daily(9, 0, 'UTC'), at('2026-03-10T09:00:00Z'), 0))).toBe('2026-03-11T09:00:00.000Z');
    // Paris is UTC+1 in winter, UTC+2 in summer.
    expect(iso(nextFireMs(daily(9, 0, 'Europe/Paris'), at('2026-01-15T00:00:00Z'), 0))).toBe(
      '2026-01-15T08:00:00.000Z',
    );
    expect(iso(nextFireMs(daily(9, 0, 'Europe/Paris'), at('2026-07-15T00:00:00Z'), 0))).toBe(
      '2026-07-15T07:00:00.000Z',
    );
    // Late in the evening in New York is the next UTC day already.
    expect(iso(nextFireMs(daily(23, 30, 'America/New_York'), at('2026-01-15T12:00:00Z'), 0))).toBe(
      '2026-01-16T04:30:00.000Z',
    );
  });

  it('follows daylight-saving changes', () => {
    // Paris moves to summer time on 2026-03-29: 09:00 is 08:00Z the day before and 07:00Z that day.
    const when = daily(9, 0, 'Europe/Paris');
    expect(iso(nextFireMs(when, at('2026-03-28T09:00:00Z'), 0))).toBe('2026-03-29T07:00:00.000Z');
    // 02:30 does not exist that day: it fires once, beside it, and the day after at 02:30 again.
    const gap = daily(2, 30, 'Europe/Paris');
    const first = nextFireMs(gap, at('2026-03-28T23:00:00Z'), 0);
    expect(first).toBeGreaterThan(at('2026-03-28T23:00:00Z'));
    expect(first).toBeLessThan(at('2026-03-29T02:00:00Z'));
    expect(iso(nextFireMs(gap, first, 0))).toBe('2026-03-30T00:30:00.000Z');
  });

  it('picks the next matching weekday', () => {
    // 2026-03-10 is a Tuesday.
    const monday = { kind: 'at', hour: 8, minute: 30, days: [1], timeZone: 'UTC' } as const;
    expect(iso(nextFireMs(monday, at('2026-03-10T10:00:00Z'), 0))).toBe('2026-03-16T08:30:00.000Z');
    const weekdays = { kind: 'at', hour: 7, minute: 0, days: [1, 2, 3, 4, 5], timeZone: 'UTC' } as const;
    // Friday after 07:00 → Monday.
    expect(iso(nextFireMs(weekdays, at('2026-03-13T08:00:00Z'), 0))).toBe('2026-03-16T07:00:00.000Z');
    // Monday in Tokyo starts on Sunday in UTC.
    const tokyo = { kind: 'at', hour: 8, minute: 0, days: [1], timeZone: 'Asia/Tokyo' } as const;
    expect(iso(nextFireMs(tokyo, at('2026-03-10T10:00:00Z'), 0))).toBe('2026-03-15T23:00:00.000Z');
  });
});

describe('canonicalTimeZone', () => {
  it('knows IANA names through Intl and refuses anything else', () => {
    expect(canonicalTimeZone('europe/paris')).toBe('Europe/Paris');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('Nowhere/Special')).toBeUndefined();
    expect(canonicalTimeZone('')).toBeUndefined();
    expect(canonicalTimeZone('Europe/Paris; rm -rf /')).toBeUndefined();
  });
});
