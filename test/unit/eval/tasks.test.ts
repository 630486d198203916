import { describe, expect, it } from 'vitest';
import { canonicalAnswer, checkAnswer, type Expected } from '../../../cli/eval/answers.js';
import { campaignsData } from '../../../cli/eval/data/campaigns.js';
import { DEFAULT_INLINE_CHARS } from '../../../cli/eval/no-code-mode.js';
import { EVAL_TASKS } from '../../../cli/eval/tasks/index.js';
import { CATEGORIES, promptOf, type BuiltTask } from '../../../cli/eval/task.js';
import { mean, sampleStd } from '../../../cli/eval/stats.js';
import { independentAnswers } from './independent-answers.js';

const built = new Map<string, BuiltTask>();
for (const task of EVAL_TASKS) built.set(task.id, await task.build());

/** A wrong answer of the same kind: off by more than the precision, another name, another order. */
function wrongAnswer(expected: Expected): string {
  switch (expected.kind) {
    case 'number':
      return (expected.value + (expected.decimals === 0 ? 1 : 3 * 10 ** -expected.decimals)).toFixed(expected.decimals);
    case 'text':
      return 'Atlantis';
    case 'date':
      return expected.value.replace(/\d$/, (d) => String((Number(d) + 1) % 10));
    case 'list':
      return (expected.ordered ? [...expected.values].reverse() : expected.values.slice(1)).join(', ');
    case 'numbers':
      return expected.values.map((v, i) => (i === 0 ? v + 1 : v)).join(', ');
    case 'map':
      return Object.entries(expected.values)
        .map(([k, v], i) => `${k}=${i === 0 ? v + 1 : v}`)
        .join(', ');
  }
}

describe('the bundled eval tasks', () => {
  it('are at least 40, with unique ids, covering every category', () => {
    expect(EVAL_TASKS.length).toBeGreaterThanOrEqual(40);
    expect(new Set(EVAL_TASKS.map((t) => t.id)).size).toBe(EVAL_TASKS.length);
    for (const category of CATEGORIES)
      expect(EVAL_TASKS.filter((t) => t.category === category).length, category).toBeGreaterThanOrEqual(
        category === 'chart' ? 2 : 5,
      );
    expect(EVAL_TASKS.some((t) => built.get(t.id)!.files.some((f) => f.name.endsWith('.xlsx')))).toBe(true);
    expect(EVAL_TASKS.filter((t) => built.get(t.id)!.chart).map((t) => t.category)).toEqual([
      'chart',
      'chart',
      'chart',
    ]);
  });

  it('generate the same files, question and answer on every build', async () => {
    for (const task of EVAL_TASKS) {
      const again = await task.build();
      const first = built.get(task.id)!;
      expect(again.question, task.id).toBe(first.question);
      expect(again.expected, task.id).toEqual(first.expected);
      expect(again.files.map((f) => [f.name, f.data.toString('base64')])).toEqual(
        first.files.map((f) => [f.name, f.data.toString('base64')]),
      );
    }
  });

  it('ask for the answer on an ANSWER line in a stated format, with data that fits the no-code prompt whole', () => {
    for (const [id, task] of built) {
      expect(promptOf(task), id).toMatch(
        /End your reply with one last line "ANSWER: <answer>", where <answer> is .+\.$/,
      );
      const chars = task.files.reduce((n, f) => n + f.text.length, 0);
      expect(chars, id).toBeLessThan(DEFAULT_INLINE_CHARS / task.files.length);
    }
  });

  it('accept their own answer and refuse a wrong one', () => {
    for (const [id, task] of built) {
      const right = checkAnswer(task.expected, `Working…\n\nANSWER: ${canonicalAnswer(task.expected)}`);
      expect(right, id).toMatchObject({ correct: true });
      const wrong = checkAnswer(task.expected, `ANSWER: ${wrongAnswer(task.expected)}`);
      expect(wrong.correct, `${id}: ${wrongAnswer(task.expected)}`).toBe(false);
    }
  });

  it('have the answers a reading of the written files computes independently', () => {
    const checked = Object.entries(independentAnswers);
    expect(checked.length).toBeGreaterThanOrEqual(20);
    for (const [id, compute] of checked) {
      const task = built.get(id);
      expect(task, id).toBeDefined();
      const files = new Map(task!.files.map((f) => [f.name, f]));
      const answer = compute(files);
      expect(checkAnswer(task!.expected, `ANSWER: ${answer}`), `${id}: ${answer}`).toMatchObject({ correct: true });
    }
  });

  it('leave no z-score near the outlier threshold, so |z| > 2 has one reading', () => {
    const revenue = campaignsData().map((c) => c.revenue);
    const [m, s] = [mean(revenue), sampleStd(revenue)];
    for (const r of revenue) expect(Math.abs(Math.abs((r - m) / s) - 2)).toBeGreaterThan(0.02);
  });
});
