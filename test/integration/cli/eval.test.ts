import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalAnswer, checkAnswer } from '../../../cli/eval/answers.js';
import { figureVerdict, INSTALL_PROBE, parseFigures, READ_PROBE } from '../../../cli/eval/chart-probe.js';
import { EVAL_TASKS } from '../../../cli/eval/tasks/index.js';
import { promptOf } from '../../../cli/eval/task.js';
import {
  FakeOpenAiServer,
  fakeRunCode,
  fakeSay,
  type ChatRequestBody,
  type FakeReply,
} from '../../fakes/fake-openai-server.js';
import { PANDAS_REFERENCES } from '../../unit/eval/pandas-references.js';
import { makeSandbox } from '../sandbox/helpers.js';
import { cliEnv, runCli } from './cli-process.js';

/**
 * The scripted model. With code execution it runs the task's pandas solution in the real sandbox and answers
 * with what it printed; `wrong` answers one more than that, with a percentage no run printed. Without code it
 * answers the expected answer, a wrong one, or no ANSWER line.
 */
interface Script {
  code: string;
  codeMode: 'right' | 'wrong';
  noCode: 'right' | 'wrong' | 'no answer line';
}

const SCRIPTS: Record<string, Script> = {
  'agg-total-revenue': { code: PANDAS_REFERENCES['agg-total-revenue']!, codeMode: 'right', noCode: 'wrong' },
  'join-top-customer': { code: PANDAS_REFERENCES['join-top-customer']!, codeMode: 'right', noCode: 'right' },
  'excel-hired-2021': { code: PANDAS_REFERENCES['excel-hired-2021']!, codeMode: 'wrong', noCode: 'no answer line' },
  'chart-units-by-region': { code: PANDAS_REFERENCES['chart-units-by-region']!, codeMode: 'right', noCode: 'right' },
  // The answer is right, but the figure plots running totals: with code execution the figure check fails it.
  'chart-monthly-orders': {
    code: PANDAS_REFERENCES['chart-monthly-orders']!.replace('counts.plot(', 'counts.cumsum().plot('),
    codeMode: 'right',
    noCode: 'wrong',
  },
};
const TASK_IDS = Object.keys(SCRIPTS);

const built = new Map(
  await Promise.all(
    EVAL_TASKS.filter((t) => TASK_IDS.includes(t.id)).map(async (t) => [t.id, await t.build()] as const),
  ),
);

function taskOf(body: ChatRequestBody): string {
  const text = body.messages
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');
  const id = [...built].find(([, b]) => text.includes(promptOf(b)))?.[0];
  if (!id) throw new Error('fake model: a request for no known task');
  return id;
}

function reply(body: ChatRequestBody): FakeReply {
  const id = taskOf(body);
  const script = SCRIPTS[id]!;
  if (!body.tools) {
    if (script.noCode === 'no answer line') return fakeSay('I cannot tell from the data.');
    return fakeSay(`ANSWER: ${script.noCode === 'right' ? canonicalAnswer(built.get(id)!.expected) : '1.00'}`);
  }
  const tool = body.messages.find((m) => m.role === 'tool');
  if (!tool) return fakeRunCode(script.code);
  const printed = /RESULT=(.*)/.exec(String(tool.content))?.[1];
  if (printed === undefined) return fakeSay(`The code failed:\n${String(tool.content)}`);
  // The wrong answer also states a figure no run printed: the verification round asks, and the model insists.
  if (script.codeMode === 'wrong') return fakeSay(`Done, 12.5 % up on last year.\nANSWER: ${Number(printed) + 1}`);
  return fakeSay(`Done.\nANSWER: ${printed}`);
}

const dataDir = mkdtempSync(join(tmpdir(), 'threadlab-eval-'));
const model = new FakeOpenAiServer({ fallback: reply });

beforeAll(async () => {
  await model.start();
});

afterAll(async () => {
  await model.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const env = () =>
  cliEnv(dataDir, { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'sk-eval-test', OPENAI_MODEL: 'scripted' });

describe('threadlab eval (a scripted model, the real sandbox)', () => {
  it('prints per task and mode whether the answer was right, and the accuracy side by side', async () => {
    const startedMs = Date.now();
    const res = await runCli(['eval', '--tasks', TASK_IDS.join(','), '--concurrency', '3'], { env: env() });
    process.stderr.write(
      `threadlab eval, ${TASK_IDS.length} tasks in both modes: ${Date.now() - startedMs} ms\n${res.stdout}`,
    );
    expect(res.stderr).not.toMatch(/failed|error/i);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^accuracy\s+3\/5 = 60\.0 %\s+2\/5 = 40\.0 %$/m);
    // Code execution: two model rounds of 50 + 10 tokens each; no code: one.
    // The answer states the figure its run printed: 1 of 1 found; the wrong answer's figure is found nowhere.
    expect(res.stdout).toMatch(
      /^agg-total-revenue\s+aggregation\s+✔\s+2\s+120\s+[\d.]+\s+1\/1\s+✘\s+1\s+60\s+[\d.]+$/m,
    );
    expect(res.stdout).toMatch(/^excel-hired-2021\s+excel\s+✘\s+3\s+180\s+[\d.]+\s+0\/1\*\s+✘\s+1\s+60/m);
    expect(res.stdout).toMatch(/^chart-units-by-region\s+chart\s+✔\s+2\s+120\s+[\d.]+\s+4\/4\s+✔/m);
    expect(res.stdout).toMatch(/^figures not found\s+1\s+—$/m);
    expect(res.stdout).toMatch(/^answers with a figure not found\s+1\/5\s+—$/m);
    expect(res.stdout).toMatch(/^verification rounds\s+1\s+—$/m);
    expect(res.stdout).toMatch(/^ {2}excel-hired-2021 \(code execution\): gave "9"; expected 8$/m);
    expect(res.stdout).toMatch(/^ {2}excel-hired-2021 \(no code\): no ANSWER line$/m);
    expect(res.stdout).toContain('chart-monthly-orders (code execution): gave "35, 26,');
    expect(res.stdout).toMatch(/chart-monthly-orders \(code execution\): .*no figure plots the expected values/);
    expect(res.stderr).toMatch(/^✔ agg-total-revenue \(code execution\): 2 rounds/m);
  });

  it('prints JSON with --json; without code execution it needs no sandbox', async () => {
    const res = await runCli(
      ['eval', '--mode', 'no-code', '--tasks', 'agg-total-revenue,join-top-customer', '--json'],
      { env: env() },
    );
    expect(res.code).toBe(0);
    const report = JSON.parse(res.stdout);
    expect(report.modes).toEqual(['no-code']);
    expect(report.totals['no-code']).toMatchObject({ tasks: 2, correct: 1, accuracy: 0.5, rounds: 2 });
    expect(report.tasks[1]).toMatchObject({ id: 'join-top-customer', 'no-code': { correct: true, rounds: 1 } });
    expect(report.tasks[0]['no-code']).toMatchObject({ correct: false, given: '1.00' });
  });

  it('says which setting to set when no model is configured (1), and refuses bad options (2)', async () => {
    const none = await runCli(['eval', '--tasks', 'agg-total-revenue'], { env: cliEnv(dataDir) });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/set OPENAI_API_KEY .* or OPENAI_BASE_URL/);
    const bad = await runCli(['eval', '--mode', 'sometimes', '--tasks', 'no-such-task'], { env: env() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--tasks: no task no-such-task');
    expect(bad.stderr).toContain('--mode: expected both, code or no-code');
  });
});

describe('the bundled tasks in the real sandbox', () => {
  it('pandas, reading the generated CSV and XLSX files, reaches every expected answer and draws the checked charts', async () => {
    const startedMs = Date.now();
    const { sandbox, close } = await makeSandbox('eval-references');
    try {
      const all = await Promise.all(EVAL_TASKS.map(async (t) => [t, await t.build()] as const));
      const shared = 'eval-all';
      const uploaded = new Set<string>();
      for (const [, task] of all)
        for (const file of task.files)
          if (!uploaded.has(file.name)) {
            uploaded.add(file.name);
            await sandbox.putFile(shared, file.name, file.data);
          }
      const wrong: string[] = [];
      for (const [t, task] of all) {
        // Each chart gets a thread of its own, so the recorder sees that chart's figures only.
        const key = task.chart ? `eval-${t.id}` : shared;
        if (task.chart) {
          for (const file of task.files) await sandbox.putFile(key, file.name, file.data);
          await sandbox.run(key, { language: 'python', code: INSTALL_PROBE, internal: true });
        }
        const result = await sandbox.run(key, { language: 'python', code: PANDAS_REFERENCES[t.id]! });
        const printed = /RESULT=(.*)/.exec(result.stdout)?.[1];
        const verdict = checkAnswer(task.expected, `ANSWER: ${printed}`);
        if (!verdict.correct) wrong.push(`${t.id}: pandas ${printed ?? result.error?.value}, ${verdict.reason}`);
        if (task.chart) {
          const read = await sandbox.run(key, { language: 'python', code: READ_PROBE, internal: true });
          const figure = figureVerdict(task.chart, parseFigures(read.stdout));
          if (!figure.correct) wrong.push(`${t.id}: ${figure.reason}`);
        }
      }
      expect(wrong).toEqual([]);
      expect(Object.keys(PANDAS_REFERENCES).sort()).toEqual(EVAL_TASKS.map((t) => t.id).sort());
    } finally {
      await close();
    }
    process.stderr.write(`pandas solutions of ${EVAL_TASKS.length} tasks: ${Date.now() - startedMs} ms\n`);
  });
});
