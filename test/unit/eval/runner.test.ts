import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { INSTALL_PROBE, READ_PROBE } from '../../../cli/eval/chart-probe.js';
import { runWithCode, type CodeModeDeps } from '../../../cli/eval/code-mode.js';
import { runWithoutCode } from '../../../cli/eval/no-code-mode.js';
import { mapBounded, runEval } from '../../../cli/eval/runner.js';
import { EVAL_TASKS } from '../../../cli/eval/tasks/index.js';
import { loadConfig } from '../../../src/config/index.js';
import { ThreadlabError } from '../../../src/domain/errors.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { answer, runCode, ScriptedLlm } from '../../fakes/scripted-llm.js';

const settings = loadConfig({}).llm;
const logger = pino({ level: 'silent' });
const task = (id: string) => EVAL_TASKS.find((t) => t.id === id)!;

function codeDeps(llm: ScriptedLlm, sandbox: FakeSandbox, overrides: Partial<CodeModeDeps> = {}): CodeModeDeps {
  return { llm, sandbox, settings, sandboxTimeoutMs: 5000, timeoutMs: 30_000, logger, runId: 'test', ...overrides };
}

const noCodeDeps = (llm: ScriptedLlm, inlineChars = 60_000) => ({ llm, settings, timeoutMs: 30_000, inlineChars });

/** A recorder output with one bar chart of these heights. */
const figures = (heights: number[]) =>
  `THREADLAB_EVAL_FIGURES=${JSON.stringify([{ axes: [{ bars: heights.map((h, i) => [i, 0, 0.8, h]), lines: [] }] }])}\n`;

describe('a task with code execution', () => {
  it("goes through the bot's loop in a fresh thread with its files, and counts rounds, runs and tokens", async () => {
    const llm = new ScriptedLlm({ steps: [runCode('print(total)'), answer('Done.\nANSWER: 87297.67')] });
    const sandbox = new FakeSandbox();
    sandbox.enqueue({ stdout: '87297.6712\n' });
    const run = await runWithCode(
      task('agg-total-revenue'),
      await task('agg-total-revenue').build(),
      codeDeps(llm, sandbox),
    );
    expect(run).toMatchObject({
      mode: 'code',
      correct: true,
      outcome: 'answer',
      given: '87297.67',
      rounds: 2,
      runs: 1,
      figures: { checked: 1, notFound: 0, notFoundTexts: [], unchecked: 0, verificationRound: false },
    });
    expect(run.promptTokens + run.completionTokens).toBe(240);
    const [putFile] = sandbox.calls.filter((c) => c.method === 'putFile');
    expect(putFile).toMatchObject({ detail: { name: 'sales.csv' } });
    expect(putFile!.key).toContain('eval-test-agg-total-revenue');
    expect(sandbox.calls.at(-1)).toEqual({ method: 'reset', key: putFile!.key });
    const user = llm.requests[0]!.messages.find((m) => m.role === 'user');
    expect(user?.content).toMatch(
      /What is the total revenue of all orders\?[\s\S]*Uploaded with this message: sales.csv/,
    );
    expect(llm.requests[0]!.tools).toEqual(['run_code']);
  });

  it('carries the check of the answer’s figures: one not found after the verification round', async () => {
    const insisted = 'The total is 87297.67, up 12.4 % on last year.\nANSWER: 87297.67';
    const llm = new ScriptedLlm({ steps: [runCode('print(total)'), answer(insisted), answer(insisted)] });
    const sandbox = new FakeSandbox();
    sandbox.enqueue({ stdout: '87297.6712\n' });
    const run = await runWithCode(
      task('agg-total-revenue'),
      await task('agg-total-revenue').build(),
      codeDeps(llm, sandbox),
    );
    expect(run).toMatchObject({ correct: true, rounds: 3 });
    expect(run.figures).toEqual({
      checked: 3,
      notFound: 1,
      notFoundTexts: ['12.4 %'],
      unchecked: 0,
      verificationRound: true,
    });
    const off = await runWithCode(
      task('agg-total-revenue'),
      await task('agg-total-revenue').build(),
      codeDeps(new ScriptedLlm({ steps: [runCode('print(total)'), answer(insisted)] }), sandbox, {
        settings: { ...settings, verifyFigures: 'off' },
      }),
    );
    expect(off.rounds).toBe(2);
    expect(off.figures).toBeUndefined();
  });

  it('checks a chart task against the figure its code drew, recorded around the turn', async () => {
    const built = await task('chart-units-by-region').build();
    const plotted = built.chart!.values;
    for (const [heights, correct] of [
      [plotted, true],
      [plotted.map((v) => v + 1), false],
    ] as const) {
      const llm = new ScriptedLlm({
        steps: [runCode('plot()'), answer(`ANSWER: East=1040, North=1079, South=732, West=901`)],
      });
      const sandbox = new FakeSandbox({
        handler: ({ request }) =>
          request.code === READ_PROBE
            ? { stdout: figures([...heights]) }
            : { stdout: 'East 1040\nNorth 1079\nSouth 732\nWest 901\n' },
      });
      const run = await runWithCode(task('chart-units-by-region'), built, codeDeps(llm, sandbox));
      expect(run.correct).toBe(correct);
      if (!correct) expect(run.reason).toBe('no figure plots the expected values');
      expect(
        sandbox.runs.map((r) => [
          r.request.code === INSTALL_PROBE ? 'install' : r.request.code === READ_PROBE ? 'read' : r.request.code,
          r.request.internal,
        ]),
      ).toEqual([
        ['install', true],
        ['plot()', undefined],
        ['read', true],
      ]);
    }
  });

  it('ends wrong, with the reason, when the rounds run out or the sandbox fails', async () => {
    const built = await task('agg-top-region').build();
    const budget = await runWithCode(
      task('agg-top-region'),
      built,
      codeDeps(new ScriptedLlm({ fallback: runCode('print(1)') }), new FakeSandbox(), {
        settings: { ...settings, maxRounds: 2 },
      }),
    );
    expect(budget).toMatchObject({ correct: false, outcome: 'budget', rounds: 2 });
    expect(budget.reason).toMatch(/^budget: /);
    const broken = new FakeSandbox();
    broken.putFile = () => Promise.reject(new ThreadlabError('docker_unreachable', 'Docker is not running.'));
    const failed = await runWithCode(task('agg-top-region'), built, codeDeps(new ScriptedLlm(), broken));
    expect(failed).toMatchObject({ correct: false, outcome: 'error', reason: 'Docker is not running.', rounds: 0 });
  });
});

describe('a task without code execution', () => {
  it('asks once, with no tools and the files in the message', async () => {
    const llm = new ScriptedLlm({ steps: [answer('ANSWER: East')] });
    const built = await task('agg-top-region').build();
    const run = await runWithoutCode(task('agg-top-region'), built, noCodeDeps(llm));
    expect(run).toMatchObject({ mode: 'no-code', correct: true, rounds: 1, runs: 0, truncated: false });
    expect(llm.requests[0]!.tools).toEqual([]);
    const user = llm.requests[0]!.messages[1]!.content as string;
    expect(user).toContain(built.files[0]!.text);
    expect(user).toMatch(/Which region brought in the most revenue\?\n\nEnd your reply/);
  });

  it('cuts the files at a line end to the stated limit and says how much was left out', async () => {
    const llm = new ScriptedLlm({ steps: [answer('ANSWER: 1')] });
    const run = await runWithoutCode(
      task('agg-top-region'),
      await task('agg-top-region').build(),
      noCodeDeps(llm, 2000),
    );
    expect(run).toMatchObject({ truncated: true, correct: false });
    const user = llm.requests[0]!.messages[1]!.content as string;
    expect(user).toMatch(/\n\[… \d+ more lines not shown\]\n```/);
    expect(user.indexOf('[…')).toBeLessThan(2100);
  });

  it('reports a model API failure as failed, with its message', async () => {
    const llm = new ScriptedLlm({ steps: [new ThreadlabError('llm_api', 'The model refused: 400 no such model.')] });
    const run = await runWithoutCode(task('agg-top-region'), await task('agg-top-region').build(), noCodeDeps(llm));
    expect(run).toMatchObject({ correct: false, outcome: 'failed', reason: 'The model refused: 400 no such model.' });
  });
});

describe('running the plan', () => {
  it('keeps at most `limit` calls in flight and the results in order', async () => {
    let inFlight = 0;
    let most = 0;
    const results = await mapBounded([5, 1, 4, 2, 3], 2, async (n) => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, n));
      inFlight -= 1;
      return n * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
  });

  it('runs every task in every mode asked for and reports each run as it ends', async () => {
    const llm = new ScriptedLlm({ fallback: answer('ANSWER: East') });
    const seen: string[] = [];
    const reports = await runEval(
      { tasks: [task('agg-top-region'), task('join-top-country')], modes: ['code', 'no-code'], concurrency: 3 },
      {
        code: codeDeps(llm, new FakeSandbox()),
        noCode: noCodeDeps(llm),
        onRun: (run) => seen.push(`${run.taskId}/${run.mode}`),
      },
    );
    expect(seen.sort()).toEqual([
      'agg-top-region/code',
      'agg-top-region/no-code',
      'join-top-country/code',
      'join-top-country/no-code',
    ]);
    expect(reports.map((r) => [r.task.id, r.runs.code?.correct, r.runs['no-code']?.correct])).toEqual([
      ['agg-top-region', true, true],
      ['join-top-country', false, false],
    ]);
  });
});
