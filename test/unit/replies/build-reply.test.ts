import { describe, expect, it } from 'vitest';
import type { Artifact } from '../../../src/domain/execution.js';
import { buildReply, type BuildReplyDeps } from '../../../src/replies/build-reply.js';
import { MapSandbox, RecordingRenderer, run, turn } from './helpers.js';

const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

function deps(
  sandbox = new MapSandbox(),
  renderer = new RecordingRenderer(),
  limits: Partial<BuildReplyDeps['limits']> = {},
): BuildReplyDeps {
  return {
    sandbox,
    renderer,
    threadKey: 'slack:T1:C1:1700000000.000100',
    limits: { maxImageDimensionPx: 2048, maxOutputLines: 60, maxFileBytes: 10_000, ...limits },
  };
}

function artifact(path: string, bytes: number, mime = 'text/csv', change: Artifact['change'] = 'created'): Artifact {
  return { path, bytes, mime, change };
}

describe('buildReply: direct mode', () => {
  it('golden: a 100,000-line output becomes a preview, a summary line and an attached output.txt', async () => {
    const stdout = Array.from({ length: 100_000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const reply = await buildReply(turn({ direct: true, runs: [run({ stdout })] }), deps());
    const block = /^```text\n([\s\S]*?)\n```$/m.exec(reply.text)![1]!.split('\n');
    expect(block).toHaveLength(61);
    expect(block.slice(0, 2)).toEqual(['line 1', 'line 2']);
    expect(block[40]).toBe('… 99,940 lines not shown …');
    expect(block[60]).toBe('line 100000');
    expect(reply.text).toContain(
      'Output: 100,000 lines (1.0 MB), showing the first 40 and last 20; the full output is attached as `output.txt`.',
    );
    expect(reply.files).toHaveLength(1);
    expect(reply.files[0]).toMatchObject({ name: 'output.txt', mime: 'text/plain' });
    expect(reply.files[0]!.data.toString('utf8')).toBe(stdout);
    expect(reply.omitted).toBeUndefined();
    expect(reply.runs[0]!.outputExcerpt!.split('\n')).toHaveLength(13);
  });

  it('reads the full output the sandbox kept when it elided the middle', async () => {
    const full = Array.from({ length: 5000 }, (_, i) => `row ${i}`).join('\n');
    const sandbox = new MapSandbox(new Map([['.threadlab/output-3.txt', Buffer.from(full)]]));
    const r = run({
      stdout: 'row 0\n…elided…\nrow 4999\n',
      truncated: { stdoutBytes: 40_000, stderrBytes: 0, fullOutputPath: '.threadlab/output-3.txt' },
      artifacts: [artifact('.threadlab/output-3.txt', full.length, 'text/plain')],
    });
    const reply = await buildReply(turn({ direct: true, runs: [r] }), deps(sandbox));
    expect(reply.files.map((f) => f.name)).toEqual(['output.txt']);
    expect(reply.files[0]!.data.toString()).toBe(`${full}\n`);
    expect(reply.text).toContain('Output: 5,000 lines');
  });

  it('shows a short output as a code block, and an error with its traceback', async () => {
    const r = run({
      status: 'error',
      stdout: 'before\n',
      error: {
        name: 'ZeroDivisionError',
        value: 'division by zero',
        traceback:
          '\x1b[31mTraceback (most recent call last):\x1b[0m\n  File "<cell>", line 2\nZeroDivisionError: division by zero',
      },
    });
    const reply = await buildReply(turn({ direct: true, runs: [r], durationMs: 900 }), deps());
    expect(reply.kind).toBe('answer');
    expect(reply.text).toBe(
      '```text\nbefore\n```\n\n**ZeroDivisionError**: division by zero\n```text\nTraceback (most recent call last):\n  File "<cell>", line 2\nZeroDivisionError: division by zero\n```',
    );
    expect(reply.runs[0]).toMatchObject({
      status: 'error',
      outputExcerpt: 'before\nZeroDivisionError: division by zero',
    });
    expect(reply.footer).toEqual({ durationMs: 900, runs: 1 });
  });

  it('says how a run ended when it timed out or lost its state, and says when nothing was printed', async () => {
    const timedOut = run({ status: 'timeout', durationMs: 60_000 });
    const killed = run({ status: 'killed', killReason: 'memory', stateReset: { reason: 'out of memory' } });
    const silent = run({});
    const reply = await buildReply(turn({ direct: true, runs: [timedOut, killed, silent] }), deps());
    expect(reply.text).toContain('_The run timed out after 1 min 0 s and was interrupted._');
    expect(reply.text).toContain('it ran out of memory; variables are gone');
    expect(reply.text).toContain('**Run 3** (python)\n\n_No output._');
  });

  it('tells the user which variables were restored in a new sandbox and when a save did not happen', async () => {
    const restored = run({
      stdout: '42\n',
      stateRestored: { reason: 'the bot restarted', savedAt: '2026-11-23T08:00:00Z', variables: 1, notRestored: [] },
    });
    const notSaved = run({ stateNotSaved: { reason: 'they take more than 1 MiB saved (THREADLAB_STATE_MAX_MB)' } });
    const reply = await buildReply(turn({ direct: true, runs: [restored, notSaved] }), deps());
    expect(reply.text).toContain('Restored 1 variable saved at 2026-11-23 08:00 UTC (the bot restarted).');
    expect(reply.text).toContain(
      'The variables after the previous run were not saved: they take more than 1 MiB saved (THREADLAB_STATE_MAX_MB).',
    );
  });

  it('tells the user how many background processes were stopped when a run ended', async () => {
    const reply = await buildReply(
      turn({ direct: true, runs: [run({ stdout: 'x\n', stoppedProcesses: 2 }), run({ stoppedProcesses: 1 })] }),
      deps(),
    );
    expect(reply.text).toContain('2 background processes left running by the run were stopped when it ended.');
    expect(reply.text).toContain('1 background process left running by the run was stopped when it ended.');
  });

  it('words a run the user stopped as a stop, not as a timeout', async () => {
    const stopped = run({ status: 'timeout', durationMs: 2_000, interruptedBy: 'cancelled' });
    const reply = await buildReply(turn({ direct: true, runs: [stopped] }), deps());
    expect(reply.text).toContain('stopped at your request');
    expect(reply.text).not.toContain('timed out');
  });

  it('shows a small table as monospace and points a large one to the CSV the run wrote', async () => {
    const small = {
      data: { 'text/html': '<table class="dataframe"></table>', 'text/plain': '   a  b\n0  1  2\n1  3  4' },
    };
    const largePlain = '     a\n0    1\n..  ..\n999  9\n\n[1000 rows x 1 columns]';
    const large = { data: { 'text/html': '<table class="dataframe"></table>', 'text/plain': largePlain } };
    const sandbox = new MapSandbox(new Map([['out/result.csv', Buffer.from('a\n1\n')]]));
    const r = run({ displays: [small, large], artifacts: [artifact('out/result.csv', 4)] });
    const reply = await buildReply(turn({ direct: true, runs: [r] }), deps(sandbox));
    expect(reply.text).toContain('```text\n   a  b\n0  1  2\n1  3  4\n```');
    expect(reply.text).toContain('Table: 1,000 rows × 1 columns; every row is in `result.csv` (attached).');
    expect(reply.files.map((f) => f.name)).toEqual(['result.csv']);
  });

  it('attaches a table too wide to read, and suggests saving all rows when pandas abbreviated it', async () => {
    const wide =
      Array.from({ length: 5 }, (_, i) => `${i} ${'x'.repeat(200)}`).join('\n') + '\n\n[100 rows x 30 columns]';
    const r = run({ displays: [{ data: { 'text/html': '<table></table>', 'text/plain': wide } }] });
    const reply = await buildReply(turn({ direct: true, runs: [r] }), deps());
    expect(reply.text).toContain(
      "Table: 100 rows × 30 columns; only the first and last rows are shown. `df.to_csv('table.csv')` saves every row as a file. The table as printed is attached as `table-1.txt`.",
    );
    expect(reply.files[0]!.data.toString()).toBe(`${wide}\n`);
  });
});

describe('buildReply: model answers', () => {
  it('golden: text, figures with alt text, generated files by basename, image files as images too, footer', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>';
    const files = new Map([
      ['report/summary.csv', Buffer.from('a,b\n1,2\n')],
      ['plots/scatter.png', Buffer.from('other png bytes')],
      ['plots/revenue.png', Buffer.from(PNG_1PX, 'base64')], // also displayed: shown once, attached as a file
      ['data.csv', Buffer.from('x\n')],
      ['other/data.csv', Buffer.from('y\n')],
    ]);
    const runs = [
      run({
        displays: [
          {
            data: { 'image/png': PNG_1PX, 'image/svg+xml': svg, 'text/plain': '<Figure>' },
            meta: { title: 'Revenue', xlabel: 'quarter', ylabel: 'k$' },
          },
          { data: { 'text/plain': '42' } },
        ],
        artifacts: [artifact('report/summary.csv', 8), artifact('data.csv', 2)],
      }),
      run({
        displays: [{ data: { 'image/svg+xml': svg } }],
        artifacts: [
          artifact('plots/scatter.png', 70, 'image/png'),
          artifact('other/data.csv', 2),
          artifact('plots/revenue.png', 70, 'image/png'),
          artifact('report/summary.csv', 8, 'text/csv', 'modified'),
        ],
      }),
    ];
    const renderer = new RecordingRenderer();
    const sandbox = new MapSandbox(files);
    const reply = await buildReply(
      turn({
        text: 'Revenue grew **12%**.',
        runs,
        usage: { promptTokens: 1200, completionTokens: 300 },
        model: 'gpt-4.1-mini',
        durationMs: 8000,
      }),
      deps(sandbox, renderer),
    );
    expect(reply.kind).toBe('answer');
    expect(reply.text).toBe('Revenue grew **12%**.');
    expect(renderer.rendered.map((r) => [r.name, r.alt])).toEqual([
      ['figure-1.png', 'Revenue (x: quarter, y: k$)'],
      ['figure-2.svg', 'Figure 2'],
      ['scatter.png', 'scatter.png'],
    ]);
    expect(renderer.rendered[1]!.data.toString()).toBe(svg);
    expect(reply.images.map((i) => i.name)).toEqual(['figure-1.png', 'figure-2.svg', 'scatter.png']);
    expect(reply.files.map((f) => [f.name, f.description])).toEqual([
      ['summary.csv', 'changed by your code (/mnt/data/report/summary.csv)'],
      ['data.csv', 'created by your code (/mnt/data/data.csv)'],
      ['scatter.png', 'created by your code (/mnt/data/plots/scatter.png)'],
      ['data (2).csv', 'created by your code (/mnt/data/other/data.csv)'],
      ['revenue.png', 'created by your code (/mnt/data/plots/revenue.png)'],
    ]);
    expect(reply.files[3]!.data.toString()).toBe('y\n');
    expect(sandbox.reads.filter((p) => p === 'report/summary.csv')).toHaveLength(1);
    expect(reply.runs).toHaveLength(2);
    expect(reply.runs[0]).toMatchObject({ language: 'python', status: 'ok', outputExcerpt: '42' });
    expect(reply.footer).toEqual({ durationMs: 8000, runs: 2, tokens: 1500, model: 'gpt-4.1-mini' });
    expect(reply.omitted).toBeUndefined();
  });

  it('attaches a long run output with a line naming it, instead of cutting it', async () => {
    const stdout = 'x\n'.repeat(500);
    const reply = await buildReply(
      turn({ text: 'Done: see below.', runs: [run({ stdout: 'ok\n' }), run({ stdout })] }),
      deps(),
    );
    expect(reply.text).toBe(
      'Done: see below.\n\nRun 2 printed 500 lines; the full output is attached as `output-2.txt`.',
    );
    expect(reply.files.map((f) => f.name)).toEqual(['output-2.txt']);
    expect(reply.files[0]!.data.toString()).toBe(stdout);
  });

  it('lists what it could not attach, with why, and never drops it silently', async () => {
    const renderer = new RecordingRenderer();
    renderer.failNames.add('figure-1.png');
    const sandbox = new MapSandbox(new Map([['ok.txt', Buffer.from('fine')]]));
    const r = run({
      displays: [{ data: { 'image/png': Buffer.from('garbage').toString('base64') } }],
      artifacts: [
        artifact('huge.parquet', 50_000, 'application/octet-stream'),
        artifact('gone.csv', 10),
        artifact('ok.txt', 4, 'text/plain'),
      ],
      skippedArtifacts: [{ path: 'tmp/cache.sqlite', reason: 'over the 100 MB file limit' }],
    });
    const reply = await buildReply(turn({ text: 'Here.', runs: [r] }), deps(sandbox, renderer));
    expect(reply.files.map((f) => f.name)).toEqual(['ok.txt', 'figure-1.png']);
    expect(reply.text).toContain('_figure-1.png could not be rendered: it is broken; the original is attached._');
    expect(reply.omitted).toEqual([
      {
        name: 'huge.parquet',
        bytes: 50_000,
        reason: '48.8 KB is over the 9.8 KB attachment limit; it stays in /mnt/data/huge.parquet for your next message',
      },
      { name: 'gone.csv', bytes: 10, reason: 'it could not be read from the sandbox (no such file: gone.csv)' },
      {
        name: 'cache.sqlite',
        bytes: 0,
        reason: 'it was not brought back from the sandbox: over the 100 MB file limit',
      },
    ]);
  });

  it.each([
    ['budget', 'notice', 'I ran out of my budget'],
    ['cancelled', 'notice', 'Stopped.'],
    ['failed', 'error', 'The language model failed'],
    ['not_configured', 'notice', 'No language model is configured'],
  ] as const)('maps outcome %s to kind %s with a plain fallback text', async (outcome, kind, text) => {
    const reply = await buildReply(turn({ outcome }), deps());
    expect(reply.kind).toBe(kind);
    expect(reply.text).toContain(text);
  });
});
