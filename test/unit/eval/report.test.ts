import { describe, expect, it } from 'vitest';
import { formatReport, reportJson, totalsOf, type EvalContext } from '../../../cli/eval/report.js';
import type { Mode, TaskRun } from '../../../cli/eval/result.js';
import type { TaskReport } from '../../../cli/eval/runner.js';
import { EVAL_TASKS } from '../../../cli/eval/tasks/index.js';
import { countFailures } from '../../../cli/eval/failure.js';

const NO_FAILURES = countFailures([]);

const context: EvalContext = {
  model: 'model-x',
  endpoint: 'http://127.0.0.1:1/v1',
  modes: ['code', 'no-code'],
  concurrency: 2,
  timeoutMs: 60_000,
  inlineChars: 60_000,
  wallSeconds: 12.34,
};

function run(taskId: string, mode: Mode, fields: Partial<TaskRun>): TaskRun {
  const task = EVAL_TASKS.find((t) => t.id === taskId)!;
  return {
    taskId,
    category: task.category,
    mode,
    correct: true,
    outcome: 'answer',
    rounds: mode === 'code' ? 3 : 1,
    runs: mode === 'code' ? 2 : 0,
    promptTokens: 1000,
    completionTokens: 200,
    seconds: 2.5,
    ...fields,
  };
}

function figures(checked: number, notFoundTexts: string[], verificationRound = false): TaskRun['figures'] {
  return { checked, notFound: notFoundTexts.length, notFoundTexts, unchecked: 0, verificationRound };
}

async function reports(): Promise<TaskReport[]> {
  const rows: [string, Partial<TaskRun>, Partial<TaskRun>][] = [
    ['agg-total-revenue', { figures: figures(6, []) }, { correct: false, given: '87000', reason: 'expected 87297.67' }],
    [
      'stats-correlation',
      { figures: figures(4, ['12.4 %'], true) },
      { correct: false, outcome: 'failed', reason: 'The model API could not be reached.' },
    ],
    ['excel-hired-2021', { correct: false, given: '9', reason: 'expected 8' }, {}],
  ];
  return Promise.all(
    rows.map(async ([id, code, noCode]) => {
      const task = EVAL_TASKS.find((t) => t.id === id)!;
      return {
        task,
        built: await task.build(),
        runs: { code: run(id, 'code', code), 'no-code': run(id, 'no-code', noCode) },
      };
    }),
  );
}

describe('the eval report', () => {
  it('prints a row per task, the totals side by side, the categories and what was not right', async () => {
    const text = formatReport(await reports(), context);
    expect(text).toMatch(
      /^threadlab eval: 3 tasks, model model-x at http:\/\/127\.0\.0\.1:1\/v1, code execution and no code$/m,
    );
    expect(text).toMatch(
      /^task\s+category\s+code\s+rounds\s+tokens\s+seconds\s+figures\s+no-code\s+rounds\s+tokens\s+seconds$/m,
    );
    expect(text).toMatch(/^agg-total-revenue\s+aggregation\s+✔\s+3\s+1,200\s+2\.5\s+6\/6\s+✘\s+1\s+1,200\s+2\.5$/m);
    expect(text).toMatch(/^stats-correlation\s+statistics\s+✔\s+3\s+1,200\s+2\.5\s+3\/4\*\s+✘ server\s+1/m);
    expect(text).toMatch(/^excel-hired-2021\s+excel\s+✘\s+3\s+1,200\s+2\.5\s+—\s+✔/m);
    expect(text).toContain(
      'figures: of the figures in the final answer, those found in the runs’ output / those checked',
    );
    expect(text).toMatch(/^answers checked\s+2\s+—$/m);
    expect(text).toMatch(/^figures checked\s+10\s+—$/m);
    expect(text).toMatch(/^figures not found\s+1\s+—$/m);
    expect(text).toMatch(/^answers with a figure not found\s+1\/2\s+—$/m);
    expect(text).toMatch(/^verification rounds\s+1\s+—$/m);
    expect(text).toMatch(/^accuracy\s+2\/3 = 66\.7 %\s+1\/3 = 33\.3 %$/m);
    expect(text).toMatch(/^rounds per task\s+3\.0\s+1\.0$/m);
    expect(text).toMatch(/^code runs per task\s+2\.0\s+—$/m);
    expect(text).toMatch(/^tokens\s+3,600\s+3,600$/m);
    expect(text).toMatch(/^unanswered\s+0\s+1$/m);
    expect(text).toMatch(/^ {2}excel\s+0\/1 = 0\.0 %\s+1\/1 = 100\.0 %$/m);
    expect(text).toMatch(/^how the others failed$/m);
    expect(text).toMatch(/^ {2}wrong_answer: answered, checked wrong\s+1\s+1$/m);
    expect(text).toMatch(/^ {2}server: the model server failed\s+0\s+1$/m);
    expect(text).not.toMatch(/^ {2}loop:/m);
    expect(text).toContain('  agg-total-revenue (no code): gave "87000"; expected 87297.67\n');
    expect(text).toContain('  stats-correlation (no code) [server]: The model API could not be reached.\n');
    expect(text).toContain('  excel-hired-2021 (code execution): gave "9"; expected 8\n');
    expect(text).toMatch(/12\.3 s in all, 2 at a time/);
  });

  it('prints only the columns of the one mode asked for', async () => {
    const only = (await reports()).map((r) => ({ ...r, runs: { 'no-code': r.runs['no-code']! } }));
    const text = formatReport(only, { ...context, modes: ['no-code'] });
    expect(text).toMatch(/^task\s+category\s+no-code\s+rounds\s+tokens\s+seconds$/m);
    expect(text).toMatch(/^accuracy\s+1\/3 = 33\.3 %$/m);
    expect(text).not.toContain('code execution');
    expect(text).not.toContain('figures');
  });

  it('gives the same figures as JSON, with each task and its expected answer', async () => {
    const json = reportJson(await reports(), context) as {
      tasks: { id: string; expected: string; code: TaskRun }[];
      totals: Record<Mode, ReturnType<typeof totalsOf>>;
    };
    expect(json.tasks[0]).toMatchObject({ id: 'agg-total-revenue', expected: '87297.67', code: { correct: true } });
    expect(json.totals.code).toEqual({
      tasks: 3,
      correct: 2,
      accuracy: 2 / 3,
      rounds: 9,
      runs: 6,
      promptTokens: 3000,
      completionTokens: 600,
      seconds: 7.5,
      unanswered: 0,
      answersChecked: 2,
      figuresChecked: 10,
      figuresNotFound: 1,
      answersWithNotFound: 1,
      verificationRounds: 1,
      failures: { ...NO_FAILURES, wrong_answer: 1 },
    });
    expect(json.tasks[1]!.code.figures).toEqual({
      checked: 4,
      notFound: 1,
      notFoundTexts: ['12.4 %'],
      unchecked: 0,
      verificationRound: true,
    });
    expect(json.totals['no-code']).toMatchObject({
      correct: 1,
      unanswered: 1,
      answersChecked: 0,
      figuresChecked: 0,
      failures: { ...NO_FAILURES, wrong_answer: 1, server: 1 },
    });
  });
});
