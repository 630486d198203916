import { describe, expect, it } from 'vitest';
import { readEvalOptions, type EvalOptions } from '../../../cli/eval/options.js';
import { EVAL_TASKS } from '../../../cli/eval/tasks/index.js';

describe('threadlab eval options', () => {
  it('runs every task in both modes, two at a time, by default', () => {
    const options = readEvalOptions({}) as EvalOptions;
    expect(options.tasks).toHaveLength(EVAL_TASKS.length);
    expect(options).toMatchObject({
      modes: ['code', 'no-code'],
      concurrency: 2,
      timeoutMs: undefined,
      inlineChars: 60_000,
    });
  });

  it('picks tasks by id and category, comma-separated or repeated', () => {
    const byId = readEvalOptions({ tasks: ['agg-top-region,join-top-country', 'excel-hired-2021'] }) as EvalOptions;
    expect(byId.tasks.map((t) => t.id)).toEqual(['agg-top-region', 'join-top-country', 'excel-hired-2021']);
    const byCategory = readEvalOptions({ category: ['chart'], mode: 'no-code', timeout: '90' }) as EvalOptions;
    expect(byCategory.tasks.every((t) => t.category === 'chart')).toBe(true);
    expect(byCategory).toMatchObject({ modes: ['no-code'], timeoutMs: 90_000 });
  });

  it('names every bad option at once', () => {
    expect(
      readEvalOptions({
        tasks: ['nope'],
        category: ['poetry'],
        mode: 'sometimes',
        concurrency: '99',
        timeout: '0',
        'inline-chars': 'lots',
      }),
    ).toEqual({
      problems: [
        '--tasks: no task nope. Run `threadlab eval --list`.',
        expect.stringMatching(/^--category: no category poetry; expected aggregation, join, dates/),
        '--mode: expected both, code or no-code, got "sometimes".',
        '--concurrency: expected a whole number from 1 to 16, got "99".',
        '--inline-chars: expected a whole number from 1000 to 10000000, got "lots".',
        '--timeout: expected seconds (at least 1), got "0".',
      ],
    });
    expect(readEvalOptions({ tasks: ['agg-top-region'], category: ['chart'] })).toEqual({
      problems: ['--tasks and --category together pick no task.'],
    });
  });
});
