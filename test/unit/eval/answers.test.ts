import { describe, expect, it } from 'vitest';
import { answerLine, checkAnswer, parseNumber, type Expected } from '../../../cli/eval/answers.js';

const check = (expected: Expected, line: string) => checkAnswer(expected, `Some working.\n\n${line}`).correct;

describe('reading an ANSWER line', () => {
  it('takes the last ANSWER line, whatever its markdown', () => {
    expect(answerLine('ANSWER: 1\nthen\n**Answer:** 2')).toBe('2');
    expect(answerLine('**ANSWER**: East')).toBe('East');
    expect(answerLine('> answer: East')).toBe('East');
    expect(answerLine('The answer is East')).toBeUndefined();
    expect(checkAnswer({ kind: 'text', value: 'East' }, 'East')).toEqual({ correct: false, reason: 'no ANSWER line' });
  });

  it('reads numbers with currency, thousands separators, a percent sign or a unicode minus', () => {
    expect(parseNumber('$87,297.67')).toBe(87297.67);
    expect(parseNumber('**20.1 %**')).toBe(20.1);
    expect(parseNumber('−3.5')).toBe(-3.5);
    expect(parseNumber('1\u202f234\u202f567')).toBe(1234567);
    expect(parseNumber('none')).toBeUndefined();
  });
});

describe('checking an answer', () => {
  it('accepts a number within half a unit of the precision asked for, and counts exactly', () => {
    const money: Expected = { kind: 'number', value: 87297.6749, decimals: 2 };
    expect(check(money, 'ANSWER: 87297.67')).toBe(true);
    expect(check(money, 'ANSWER: 87,297.6749')).toBe(true);
    expect(check(money, 'ANSWER: 87297.66')).toBe(false);
    expect(check(money, 'ANSWER: 87297.7')).toBe(false);
    const count: Expected = { kind: 'number', value: 7, decimals: 0 };
    expect(check(count, 'ANSWER: 7')).toBe(true);
    expect(check(count, 'ANSWER: 7.0 rows')).toBe(true);
    expect(check(count, 'ANSWER: 7.4')).toBe(false);
  });

  it('compares names without case, quotes or a final period, and dates as YYYY-MM-DD', () => {
    expect(check({ kind: 'text', value: 'Jonas Conti' }, 'ANSWER: "jonas conti".')).toBe(true);
    expect(check({ kind: 'text', value: 'Jonas Conti' }, 'ANSWER: Conti')).toBe(false);
    expect(check({ kind: 'date', value: '2023-02-07' }, 'ANSWER: `2023-02-07`')).toBe(true);
    expect(check({ kind: 'date', value: '2023-02-07' }, 'ANSWER: 07/02/2023')).toBe(false);
  });

  it('compares lists in order or as sets, as the question asked', () => {
    const ordered: Expected = { kind: 'list', values: ['Gadget', 'Widget', 'Planner Pro'], ordered: true };
    expect(check(ordered, 'ANSWER: Gadget, Widget, Planner Pro')).toBe(true);
    expect(check(ordered, 'ANSWER: Widget, Gadget, Planner Pro')).toBe(false);
    expect(check(ordered, 'ANSWER: Gadget, Widget')).toBe(false);
    const set: Expected = { ...ordered, ordered: false };
    expect(check(set, 'ANSWER: planner pro; gadget; widget')).toBe(true);
  });

  it('compares number series in order and name=value pairs in JSON or plain', () => {
    const series: Expected = { kind: 'numbers', values: [35, 26, 40], decimals: 0 };
    expect(check(series, 'ANSWER: 35, 26, 40')).toBe(true);
    expect(check(series, 'ANSWER: [35, 26, 40]')).toBe(true);
    expect(check(series, 'ANSWER: 26, 35, 40')).toBe(false);
    const pairs: Expected = { kind: 'map', values: { East: 1040, 'North West': 1079.5 }, decimals: 1 };
    expect(check(pairs, 'ANSWER: East=1040, North West=1079.5')).toBe(true);
    expect(check(pairs, 'ANSWER: {"north west": 1079.5, "east": "1,040"}')).toBe(true);
    expect(check(pairs, 'ANSWER: East: 1040')).toBe(false);
    expect(check(pairs, 'ANSWER: East=1040, North West=1080')).toBe(false);
  });

  it('says what was given and what was expected when wrong, and cuts a long answer', () => {
    expect(checkAnswer({ kind: 'number', value: 8, decimals: 0 }, 'ANSWER: 9')).toEqual({
      correct: false,
      given: '9',
      reason: 'expected 8',
    });
    expect(checkAnswer({ kind: 'text', value: 'x' }, `ANSWER: ${'y'.repeat(500)}`).given).toHaveLength(201);
  });
});
