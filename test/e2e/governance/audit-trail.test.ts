/**
 * The audit trail as shipped: one `threadlab start` process (web chat, the fake OpenAI-compatible model, the
 * real Docker sandbox) with THREADLAB_AUDIT_LOG set to a file. A question whose run reads an upload and writes
 * a file and a chart, a question whose run fails, and the user's own fenced code each leave exactly one `run`
 * line, and every model call one `model_call` line, with every field of the list set to what really
 * happened; each turn of the model one `answer` line with the counts of its answer's figures (issue 27), which
 * the thread's `/export` notebook shows too; `threadlab audit --thread … --json` (the CLI process) returns the
 * same lines.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeReply } from '../../fakes/fake-openai-server.js';
import { validateNotebook } from '../../support/nbformat.js';
import { threadlabBin } from '../../support/threadlab-bin.js';
import { ShippedBot } from '../shipped/shipped-bot.js';
import { WebClientForTests, type WebMessageView } from '../shipped/web-client.js';

const bot = new ShippedBot({ web: true });
const web = new WebClientForTests(() => bot.webUrl);
const auditPath = join(bot.dataDir, 'trail', 'audit.jsonl');

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const CSV = Buffer.from('month,revenue\nJan,10\nFeb,12\nMar,9\nApr,23\n');
const ANALYSIS = [
  'import pandas as pd, matplotlib',
  'matplotlib.use("Agg")',
  'import matplotlib.pyplot as plt',
  'df = pd.read_csv("/mnt/data/sales.csv")',
  'df.describe().to_csv("/mnt/data/summary.csv")',
  'fig, ax = plt.subplots()',
  'ax.bar(df["month"], df["revenue"])',
  'fig.savefig("/mnt/data/revenue.png")',
  'print("total", df["revenue"].sum())',
  'import os',
  'print("sizes", os.path.getsize("/mnt/data/revenue.png"), os.path.getsize("/mnt/data/summary.csv"))',
].join('\n');
const FAILING = 'raise ValueError("audit me")';
const DIRECT = 'print("mine", 6 * 7)';
const MEAN = 'print("mean", 12.3456)';

/** A run_code call with server-reported usage, so the run line's tokens are the call's own. */
const runCall = (code: string, prompt: number, completion: number): FakeReply => ({
  kind: 'message',
  toolCalls: [{ name: 'run_code', arguments: JSON.stringify({ language: 'python', code }) }],
  usage: { prompt_tokens: prompt, completion_tokens: completion },
});
const say = (content: string, prompt: number, completion: number): FakeReply => ({
  kind: 'message',
  content,
  usage: { prompt_tokens: prompt, completion_tokens: completion },
});

type Line = Record<string, unknown> & { kind: string; thread: string | null };
const trail = (): Line[] =>
  readFileSync(auditPath, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Line);

const threads: { id: string; key: string; reply: WebMessageView }[] = [];
const ask = async (text: string, attachments?: { name: string; mime: string; data: Buffer }[]) => {
  const id = await web.createThread();
  await web.post(id, { text, ...(attachments ? { attachments } : {}) });
  const reply = await web.waitForAnswer(id, 90_000);
  const key = `web:local:web:${id}`;
  threads.push({ id, key, reply });
  return { id, key, reply };
};

beforeAll(async () => {
  await bot.start({ THREADLAB_AUDIT_LOG: auditPath });
}, 180_000);

afterAll(async () => {
  await bot.cleanup();
}, 60_000);

describe('the audit trail through threadlab start, the web chat and the Docker sandbox', () => {
  it('a run reading an upload and writing a file and a chart: one run line with every field', async () => {
    bot.llm.push(runCall(ANALYSIS, 321, 54), say('Revenue totals 54; chart and summary attached.', 400, 12));
    const { key, reply } = await ask('summarise and chart sales.csv', [
      { name: 'sales.csv', mime: 'text/csv', data: CSV },
    ]);
    expect(reply.text).toContain('Revenue totals 54');
    expect(reply.images!.some((i) => i.name.endsWith('revenue.png'))).toBe(true);
    const summary = await web.download(reply.files!.find((f) => f.name.endsWith('summary.csv'))!.url);
    // The sizes as the run saw them in /mnt/data (the chart shown in the chat is re-encoded for it).
    const toolResult = JSON.stringify(bot.llm.requests.at(-1)!.body.messages.filter((m) => m.role === 'tool'));
    const [, pngBytes, csvBytes] = /sizes (\d+) (\d+)/.exec(toolResult)!.map(Number);
    expect(csvBytes).toBe(summary.length);

    const lines = trail().filter((l) => l.thread === key);
    const runs = lines.filter((l) => l.kind === 'run');
    const calls = lines.filter((l) => l.kind === 'model_call');
    expect(runs).toHaveLength(1);
    expect(calls).toHaveLength(2);
    const where = {
      v: 1,
      platform: 'web',
      workspace: 'local',
      channel: 'web',
      thread: key,
      threadHash: sha256(key).slice(0, 24),
    };
    const run = runs[0]!;
    expect(run).toMatchObject({
      ...where,
      origin: 'model',
      language: 'python',
      codeSha256: sha256(ANALYSIS),
      codeBytes: Buffer.byteLength(ANALYSIS),
      status: 'ok',
      tokens: { prompt: 321, completion: 54 },
      filesIn: [{ name: 'sales.csv', bytes: CSV.length }],
      filesInMore: 0,
      filesOutMore: 0,
    });
    expect(typeof run.user).toBe('string');
    expect(run.user).not.toBe('');
    expect(typeof run.job).toBe('string');
    expect(run.durationMs).toBeGreaterThan(0);
    expect(Date.parse(run.ts as string)).toBeGreaterThan(Date.now() - 300_000);
    const out = Object.fromEntries((run.filesOut as { name: string; bytes: number }[]).map((f) => [f.name, f.bytes]));
    expect(out).toEqual({ 'revenue.png': pngBytes, 'summary.csv': csvBytes });

    expect(calls[0]).toMatchObject({
      ...where,
      user: run.user,
      job: run.job,
      model: 'fake-gpt',
      status: 'ok',
      tokens: { prompt: 321, completion: 54 },
      toolCalls: 1,
      finishReason: 'tool_calls',
    });
    expect(calls[1]).toMatchObject({ status: 'ok', tokens: { prompt: 400, completion: 12 }, toolCalls: 0 });
    expect(calls[1]!.finishReason).toBe('stop');
    for (const call of calls) expect(call.durationMs).toBeGreaterThan(0);

    // The turn's answer line: its figure (54) was printed by the run.
    const answers = lines.filter((l) => l.kind === 'answer');
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({
      ...where,
      user: run.user,
      job: run.job,
      outcome: 'answer',
      model: 'fake-gpt',
      runs: 1,
      tokens: { prompt: 721, completion: 66 },
      figuresChecked: 1,
      figuresNotFound: 0,
      figuresUnchecked: 0,
      verificationRound: false,
    });
  });

  it('a failing run: one run line with status error and nothing out', async () => {
    bot.llm.push(runCall(FAILING, 111, 22), say('That raised ValueError.', 150, 5));
    const { key } = await ask('raise an error please');
    const lines = trail().filter((l) => l.thread === key);
    const runs = lines.filter((l) => l.kind === 'run');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      origin: 'model',
      codeSha256: sha256(FAILING),
      codeBytes: Buffer.byteLength(FAILING),
      status: 'error',
      tokens: { prompt: 111, completion: 22 },
      filesIn: [],
      filesOut: [],
    });
    expect(runs[0]!.durationMs).toBeGreaterThan(0);
    expect(lines.filter((l) => l.kind === 'model_call')).toHaveLength(2);
  });

  it('an answer stating a figure no run printed: its answer line has the counts, and /export shows them', async () => {
    const insisted = 'The mean is 12.35, up 7.9 % on last year.';
    bot.llm.push(runCall(MEAN, 200, 30), say(insisted, 250, 20), say(insisted, 300, 20));
    const { id, key, reply } = await ask('what is the mean, and how does it compare with last year?');
    expect(reply.text).toContain(insisted);
    const lines = trail().filter((l) => l.thread === key);
    expect(lines.filter((l) => l.kind === 'model_call')).toHaveLength(3);
    const answers = lines.filter((l) => l.kind === 'answer');
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({
      outcome: 'answer',
      runs: 1,
      tokens: { prompt: 750, completion: 70 },
      figuresChecked: 2,
      figuresNotFound: 1,
      figuresUnchecked: 0,
      verificationRound: true,
    });
    // Counts only: neither the answer nor its figures are on the trail.
    expect(JSON.stringify(answers[0])).not.toContain('7.9');
    expect(JSON.stringify(answers[0])).not.toContain('mean');

    await web.post(id, { text: '/export' });
    const exported = async () => (await web.messages(id)).find((m) => m.role === 'bot' && m.files?.length);
    await expect.poll(exported, { timeout: 60_000, interval: 200 }).toBeDefined();
    const notebookFile = (await exported())!.files!.find((f) => f.name === 'thread.ipynb')!;
    const raw = await web.download(notebookFile.url);
    await validateNotebook(raw);
    const notebook = JSON.parse(raw.toString()) as {
      metadata: { threadlab: { figures: Record<string, number> } };
      cells: { cell_type: string; source: string; metadata: { threadlab: { role: string; figures?: unknown } } }[];
    };
    expect(notebook.cells.map((c) => c.metadata.threadlab.role)).toEqual(['header', 'message', 'run', 'answer']);
    const answerCell = notebook.cells[3]!;
    expect(answerCell.source).toBe(
      `${insisted}\n\n_Figures: 2 checked against run output, 1 not found in any output: \`7.9 %\`. ` +
        'The model was asked once to compute or remove the figures no run printed._',
    );
    expect(answerCell.metadata.threadlab.figures).toEqual({
      checked: 2,
      notFound: 1,
      notFoundTexts: ['7.9 %'],
      unchecked: 0,
      verificationRound: true,
    });
    expect(notebook.metadata.threadlab.figures).toEqual({
      answers: 1,
      checkedAnswers: 1,
      checked: 2,
      notFound: 1,
      answersWithNotFound: 1,
      verificationRounds: 1,
    });
  }, 120_000);

  it('the user’s own fenced code: one run line by the user, no tokens, no model call', async () => {
    const calls = bot.llm.requests.length;
    const { key, reply } = await ask(`\`\`\`python\n${DIRECT}\n\`\`\``);
    expect(reply.text).toContain('mine 42');
    expect(bot.llm.requests).toHaveLength(calls);
    const lines = trail().filter((l) => l.thread === key);
    expect(lines.map((l) => l.kind)).toEqual(['run']);
    expect(lines[0]).toMatchObject({
      origin: 'user',
      language: 'python',
      codeSha256: sha256(DIRECT),
      codeBytes: Buffer.byteLength(DIRECT),
      status: 'ok',
      tokens: null,
    });
    // The runner's own time: a print in a warm kernel can take under a millisecond, so 0 is a true figure.
    expect(lines[0]!.durationMs).toBeGreaterThanOrEqual(0);
    expect(lines[0]!.durationMs).toBeLessThan(60_000);
  });

  it('the whole trail is those lines, and threadlab audit --thread --json returns each thread’s', () => {
    const all = trail();
    expect(all.filter((l) => l.kind === 'run')).toHaveLength(4);
    expect(all.filter((l) => l.kind === 'model_call')).toHaveLength(bot.llm.requests.length);
    // One answer line per turn of the model; the user's own code has none.
    expect(all.filter((l) => l.kind === 'answer').map((l) => l.figuresNotFound)).toEqual([0, 0, 1]);
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      THREADLAB_DATA_DIR: bot.dataDir,
      THREADLAB_AUDIT_LOG: auditPath,
    };
    for (const { key } of threads) {
      const res = spawnSync(process.execPath, [threadlabBin(), 'audit', '--thread', key, '--json'], {
        env,
        encoding: 'utf8',
      });
      expect(res.status, res.stderr).toBe(0);
      const printed = res.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Line);
      expect(printed).toEqual(all.filter((l) => l.thread === key));
    }
    const answers = spawnSync(process.execPath, [threadlabBin(), 'audit', '--kind', 'answer'], {
      env,
      encoding: 'utf8',
    });
    expect(answers.status, answers.stderr).toBe(0);
    const text = answers.stdout.trim().split('\n');
    expect(text).toHaveLength(3);
    expect(text[2]).toMatch(
      /answer .* fake-gpt answer \d+ ms {2}runs 1 {2}tokens 750\+70 {2}figures 2 checked, 1 not found, verification round$/,
    );
  }, 60_000);
});
