import { describe, expect, it } from 'vitest';
import type { ExecutionResult, Language } from '../../../src/domain/execution.js';
import { MAX_LISTED_NOT_FOUND, MAX_RECORDED_FIGURE_CHARS, type AnswerFigures } from '../../../src/domain/figures.js';
import {
  answerEntry,
  buildNotebook,
  EXPORT_LIMITS,
  exportThread,
  messageEntry,
  recordTurn,
  runEntry,
} from '../../../src/export/index.js';
import type { TurnRun } from '../../../src/interpreter/turn.js';
import type { ExportEntry } from '../../../src/ports/conversation-store.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { validateNotebook } from '../../support/nbformat.js';

const PNG = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');

function run(code: string, result: Partial<ExecutionResult> = {}, language: Language = 'python'): TurnRun {
  return {
    language,
    code,
    result: {
      status: 'ok',
      stdout: '',
      stderr: '',
      displays: [],
      artifacts: [],
      durationMs: 1,
      executionCount: 1,
      ...result,
    },
  };
}

const at = new Date('2026-01-02T03:04:05Z');

describe('notebook export', () => {
  it('holds the messages and exactly the successful runs with their outputs, and nbformat validates it', async () => {
    const store = new MemoryConversationStore({ sweepIntervalMs: 0 });
    await recordTurn({
      store,
      threadKey: 't',
      message: { text: 'Plot the **sales**', files: ['sales.csv'] },
      runs: [
        run('import pandas as pd\ndf = pd.read_csv("sales.csv")\nprint(len(df))', { stdout: '12\n' }),
        run('df.plot(', { status: 'error', error: { name: 'SyntaxError', value: 'x', traceback: '' } }),
        run('df.head()', {
          displays: [{ data: { 'text/plain': '   a\n0  1', 'text/html': '<table><tr><td>1</td></tr></table>' } }],
        }),
        run('import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()', {
          stderr: 'a warning\n',
          displays: [{ data: { 'image/png': PNG, 'text/plain': '<Figure>' } }],
        }),
        run('while True: pass', { status: 'timeout' }),
      ],
      atMs: 1,
    });
    await recordTurn({ store, threadKey: 't', runs: [run('ls -l', { stdout: 'total 0\n' }, 'bash')], atMs: 2 });
    const log = await store.readExport('t');
    const notebook = buildNotebook({ log, python: '3.12.7', exportedAt: at });
    await validateNotebook(JSON.stringify(notebook));

    const code = notebook.cells.filter((c) => c.cell_type === 'code');
    expect(code.map((c) => c.source)).toEqual([
      'import pandas as pd\ndf = pd.read_csv("sales.csv")\nprint(len(df))',
      'df.head()',
      'import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()',
      '%%bash\nls -l',
    ]);
    expect(code.map((c) => c.cell_type === 'code' && c.execution_count)).toEqual([1, 2, 3, 4]);
    const outputs = code.map((c) => (c.cell_type === 'code' ? c.outputs : []));
    expect(outputs[0]).toEqual([{ output_type: 'stream', name: 'stdout', text: '12\n' }]);
    expect(outputs[1]).toEqual([
      {
        output_type: 'display_data',
        data: { 'text/plain': '   a\n0  1', 'text/html': '<table><tr><td>1</td></tr></table>' },
        metadata: {},
      },
    ]);
    expect(outputs[2]).toEqual([
      { output_type: 'stream', name: 'stderr', text: 'a warning\n' },
      { output_type: 'display_data', data: { 'text/plain': '<Figure>', 'image/png': PNG }, metadata: {} },
    ]);
    const markdown = notebook.cells.filter((c) => c.cell_type === 'markdown').map((c) => c.source);
    expect(markdown[0]).toContain('# Threadlab thread');
    expect(markdown[1]).toBe('Plot the **sales**\n\n_(Uploaded: `sales.csv`)_');
    expect(notebook.metadata).toMatchObject({ kernelspec: { name: 'python3' }, language_info: { version: '3.12.7' } });
  });

  it('shows R and JavaScript runs as Markdown with their code, text and charts (a notebook has one kernel)', async () => {
    const entries = [
      runEntry(run('summary(c(1, 2))', { stdout: '   Min. \n   1 \n' }, 'r'), 1)!,
      runEntry(run('plot(1:3)', { displays: [{ data: { 'image/png': PNG } }] }, 'r'), 1)!,
      runEntry(run('console.log("```")', { stdout: '```\n' }, 'javascript'), 1)!,
    ];
    const notebook = buildNotebook({ log: { entries, dropped: 0 }, exportedAt: at });
    await validateNotebook(JSON.stringify(notebook));
    expect(notebook.cells.filter((c) => c.cell_type === 'code')).toEqual([]);
    const [, r1, r2, js] = notebook.cells;
    expect(r1!.source).toContain('```r\nsummary(c(1, 2))\n```');
    expect(r1!.source).toContain('   Min. \n   1 ');
    expect(r2).toMatchObject({ attachments: { 'chart-1.png': { 'image/png': PNG } } });
    expect(r2!.source).toContain('![chart 1](attachment:chart-1.png)');
    // A fence inside the code or output cannot close the block around it.
    expect(js!.source).toContain('````js\nconsole.log("```")\n````');
  });

  it('keeps each run within its limits and says in the notebook what was left out', async () => {
    const long = 'x'.repeat(EXPORT_LIMITS.maxTextChars + 5000);
    const charts = Array.from({ length: EXPORT_LIMITS.maxImages + 2 }, () => ({ data: { 'image/png': PNG } }));
    const huge = { data: { 'image/png': 'A'.repeat(EXPORT_LIMITS.maxImageChars + 4) } };
    const entry = runEntry(
      run('print("x" * 10**6)', {
        stdout: long,
        displays: [huge, ...charts, { data: { 'application/x-custom': '{}' } }],
        truncated: { stdoutBytes: 100, stderrBytes: 0, fullOutputPath: '.threadlab/output-1.txt' },
      }),
      1,
    ) as Extract<ExportEntry, { kind: 'run' }>;
    const stdout = entry.outputs[0]!;
    expect(stdout.type === 'stream' && stdout.text.length).toBeLessThan(EXPORT_LIMITS.maxTextChars + 100);
    expect(entry.outputs.filter((o) => o.type === 'display')).toHaveLength(EXPORT_LIMITS.maxImages);
    expect(entry.omitted).toEqual([
      '5000 characters from the middle of stdout',
      "the middle of the run's output, which the sandbox did not keep either (the full output is in .threadlab/output-1.txt)",
      `a chart of ${EXPORT_LIMITS.maxImageChars + 4} base64 characters (over ${EXPORT_LIMITS.maxImageChars})`,
      `a chart past the ${EXPORT_LIMITS.maxImages} kept per run`,
      `a chart past the ${EXPORT_LIMITS.maxImages} kept per run`,
      'a result in application/x-custom, which a notebook cannot show',
    ]);
    const tooLong = runEntry(run('#'.repeat(EXPORT_LIMITS.maxCodeChars + 1)), 1);
    expect(tooLong).toMatchObject({ kind: 'message', omitted: ['the code of a run'] });
    expect(Buffer.byteLength(JSON.stringify(entry))).toBeLessThan(EXPORT_LIMITS.maxEntryBytes);

    const notebook = buildNotebook({ log: { entries: [entry, tooLong!], dropped: 7 }, exportedAt: at });
    await validateNotebook(JSON.stringify(notebook));
    expect(notebook.cells[0]!.source).toContain('**7 earlier entries of this thread are not in this export**');
    const code = notebook.cells[1]!;
    expect(code.cell_type === 'code' && code.outputs.at(-1)).toMatchObject({
      output_type: 'display_data',
      data: { 'text/markdown': expect.stringContaining("Left out of this export (Threadlab's limits)") },
    });
    expect(notebook.cells[2]!.source).toContain('was left out of the export');
  });

  it("keeps a run's outputs within the entry budget and a long message cut", () => {
    const texts = Array.from({ length: EXPORT_LIMITS.maxDisplays }, (_, i) => ({
      data: {
        'text/plain': `${i}`.padEnd(EXPORT_LIMITS.maxTextChars, '.'),
        'text/html': `<p>${i}</p>`.padEnd(EXPORT_LIMITS.maxTextChars, '.'),
      },
    }));
    const many = runEntry(run('show()', { displays: [...texts, ...texts] }), 1)!;
    // 20 results of 128 K characters pass the 2 MB a run may take: the last ones are left out, and said.
    expect(Buffer.byteLength(JSON.stringify(many))).toBeLessThanOrEqual(EXPORT_LIMITS.maxEntryBytes);
    const kept = many.kind === 'run' ? many.outputs.length : 0;
    expect(kept).toBeGreaterThan(10);
    expect(kept).toBeLessThan(EXPORT_LIMITS.maxDisplays);
    expect(many.omitted).toContain(`a result (the run's outputs passed ${EXPORT_LIMITS.maxEntryBytes} bytes)`);
    expect(many.omitted).toContain(
      `${EXPORT_LIMITS.maxDisplays} results past the ${EXPORT_LIMITS.maxDisplays} kept per run`,
    );
    const message = messageEntry('q'.repeat(EXPORT_LIMITS.maxMessageChars * 2), [], 1)!;
    expect(message.kind === 'message' && message.text.length).toBeLessThan(EXPORT_LIMITS.maxMessageChars + 100);
    expect(message.omitted).toEqual([`${EXPORT_LIMITS.maxMessageChars} characters from the middle of a message`]);
    expect(messageEntry('  ', [], 1)).toBeUndefined();
  });

  it('keeps a full log of many short lines within the log limit as a notebook file (Discord takes 10 MiB)', async () => {
    const store = new MemoryConversationStore({ sweepIntervalMs: 0 });
    const lines = 'a\n'.repeat(EXPORT_LIMITS.maxTextChars / 2);
    const runs = Array.from({ length: 20 }, () => run(lines.replace(/a/g, 'x = 1'), { stdout: lines, stderr: lines }));
    for (let i = 0; i < 10; i += 1) await recordTurn({ store, threadKey: 't', runs, atMs: i });
    const log = await store.readExport('t');
    expect(log.dropped).toBeGreaterThan(0);
    const logBytes = log.entries.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e)), 0);
    expect(logBytes).toBeLessThanOrEqual(EXPORT_LIMITS.maxLogBytes);
    const reply = await exportThread({ store, sandbox: new FakeSandbox(), threadKey: 't' });
    const notebook = reply.files.find((f) => f.name === 'thread.ipynb')!.data;
    expect(notebook.length).toBeLessThan(logBytes * 1.1);
    expect(notebook.length).toBeLessThan(10 * 1024 * 1024);
    await validateNotebook(notebook);
  });

  it('exports only inert outputs: active HTML, SVG and Markdown are left out, said in the metadata and a visible note', async () => {
    const store = new MemoryConversationStore({ sweepIntervalMs: 0 });
    const table = '<table border="1" class="dataframe"><tr><td>1</td></tr></table>';
    await recordTurn({
      store,
      threadKey: 't',
      runs: [
        run('hostile()', {
          displays: [
            {
              data: {
                'text/plain': 'Hostile()',
                'text/html': '<b>hi</b><img src="data:image/png;base64,AA" onerror="alert(1)">',
              },
            },
            { data: { 'text/plain': '<IPython.core.display.HTML object>', 'text/html': '<script>alert(1)</script>' } },
            { data: { 'image/svg+xml': '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect/></svg>' } },
            { data: { 'text/markdown': '[x](javascript:alert(1))', 'image/png': PNG } },
            { data: { 'text/plain': '   a\n0  1', 'text/html': table } },
            { data: { '<img src=x onerror=alert(1)>': 'x' } },
          ],
        }),
      ],
      atMs: 1,
    });
    const log = await store.readExport('t');
    const notebook = buildNotebook({ log, exportedAt: at });
    await validateNotebook(Buffer.from(JSON.stringify(notebook)));
    const cell = notebook.cells.find((c) => c.cell_type === 'code')!;
    const outputs = cell.cell_type === 'code' ? cell.outputs : [];
    const text = JSON.stringify(outputs.slice(0, -1));
    for (const active of ['<script', 'onerror', 'onload', 'javascript:', '<img'])
      expect(text, active).not.toContain(active);
    expect(outputs.slice(0, 4)).toEqual([
      {
        output_type: 'display_data',
        data: { 'text/plain': 'Hostile()' },
        metadata: { threadlab: { leftOut: ['text/html'] } },
      },
      {
        output_type: 'display_data',
        data: { 'text/plain': '<IPython.core.display.HTML object>' },
        metadata: { threadlab: { leftOut: ['text/html'] } },
      },
      {
        output_type: 'display_data',
        data: { 'image/png': PNG },
        metadata: { threadlab: { leftOut: ['text/markdown'] } },
      },
      { output_type: 'display_data', data: { 'text/plain': '   a\n0  1', 'text/html': table }, metadata: {} },
    ]);
    const note = outputs.at(-1)!;
    expect(note.output_type).toBe('display_data');
    const shown = note.output_type === 'display_data' ? note.data['text/markdown']! : '';
    expect(shown).toContain('Left out of this export as active content');
    expect(shown).toContain(
      'the text/html form of a result, which held an event handler (onerror) (its text/plain form is shown)',
    );
    expect(shown).toContain('the text/html form of a result, which held a &lt;script&gt; element');
    expect(shown).toContain('the image/svg+xml form of a result, which held an event handler (onload)');
    expect(shown).toContain(
      'the text/markdown form of a result, which held a javascript: URL (its image/png form is shown)',
    );
    expect(shown).toContain('a result in &lt;img src=x onerror=alert(1)&gt;, which a notebook cannot show');
  });

  it("shows a user's message that holds active markup as text in a fence, and others as Markdown", async () => {
    const store = new MemoryConversationStore({ sweepIntervalMs: 0 });
    await recordTurn({ store, threadKey: 't', message: { text: 'Plot **this**', files: [] }, runs: [], atMs: 1 });
    await recordTurn({
      store,
      threadKey: 't',
      message: { text: 'see <img src=x onerror=alert(1)> ```', files: [] },
      runs: [],
      atMs: 2,
    });
    const notebook = buildNotebook({ log: await store.readExport('t'), exportedAt: at });
    expect(notebook.cells.slice(1).map((c) => c.source)).toEqual([
      'Plot **this**',
      '````text\nsee <img src=x onerror=alert(1)> ```\n````\n\n_Shown as text: it held a URL that loads a resource._',
    ]);
  });

  describe('answers and the check of their figures', () => {
    const checked = (over: Partial<AnswerFigures> = {}): AnswerFigures => ({
      checked: 6,
      notFound: 1,
      notFoundTexts: ['12.4 %'],
      unchecked: 0,
      line: '⚠ 1 figure not found in any output: 12.4 %',
      marks: [{ start: 0, end: 4, text: '12.4', found: false, title: 'not found in any output' }],
      verificationRound: true,
      ...over,
    });

    it('shows each answer under its runs with its figures checked and not found, in the cell and as data', async () => {
      const store = new MemoryConversationStore({ sweepIntervalMs: 0 });
      const mean = run('print(df.mean())', { stdout: 'mean 12.3456\n' });
      await recordTurn({
        store,
        threadKey: 't',
        message: { text: 'What is the mean?', files: [] },
        runs: [mean],
        answer: { text: 'The mean is **12.35**, up 12.4 % on last year.', figures: checked() },
        atMs: 1,
      });
      await recordTurn({
        store,
        threadKey: 't',
        message: { text: 'And the median?', files: [] },
        runs: [run('print(df.median())', { stdout: '11\n' })],
        answer: {
          text: 'The median is 11.',
          figures: checked({ checked: 1, notFound: 0, notFoundTexts: [], verificationRound: false }),
        },
        atMs: 2,
      });
      const notebook = buildNotebook({ log: await store.readExport('t'), exportedAt: at });
      await validateNotebook(JSON.stringify(notebook));
      expect(notebook.cells.map((c) => (c.metadata.threadlab as { role: string }).role)).toEqual([
        'header',
        'message',
        'run',
        'answer',
        'message',
        'run',
        'answer',
      ]);
      const [first, second] = notebook.cells.filter(
        (c) => (c.metadata.threadlab as { role: string }).role === 'answer',
      );
      expect(first!.cell_type).toBe('markdown');
      expect(first!.source).toBe(
        'The mean is **12.35**, up 12.4 % on last year.\n\n' +
          '_Figures: 6 checked against run output, 1 not found in any output: `12.4 %`. The model was asked once to ' +
          'compute or remove the figures no run printed._',
      );
      expect(first!.metadata).toEqual({
        threadlab: {
          role: 'answer',
          figures: { checked: 6, notFound: 1, notFoundTexts: ['12.4 %'], unchecked: 0, verificationRound: true },
        },
      });
      expect(second!.source).toBe('The median is 11.\n\n_Figures: 1 checked against run output._');
      expect(notebook.metadata.threadlab).toMatchObject({
        figures: {
          answers: 2,
          checkedAnswers: 2,
          checked: 7,
          notFound: 1,
          answersWithNotFound: 1,
          verificationRounds: 1,
        },
      });
    });

    it('exports an answer without a check, and a log recorded before answers were, as before', async () => {
      const log = {
        entries: [
          { kind: 'message', text: 'hi', atMs: 1 },
          { kind: 'run', language: 'python', code: 'print(1)', outputs: [], atMs: 1 },
          { kind: 'answer', text: 'Printed 1.', atMs: 1 },
        ] satisfies ExportEntry[],
        dropped: 0,
      };
      const notebook = buildNotebook({ log, exportedAt: at });
      await validateNotebook(JSON.stringify(notebook));
      expect(notebook.cells.at(-1)).toEqual({
        cell_type: 'markdown',
        id: 'cell-3',
        metadata: { threadlab: { role: 'answer' } },
        source: 'Printed 1.',
      });
      expect(notebook.metadata.threadlab).toMatchObject({ figures: { answers: 1, checkedAnswers: 0, checked: 0 } });
      const before = buildNotebook({ log: { entries: log.entries.slice(0, 2), dropped: 0 }, exportedAt: at });
      expect(before.cells.map((c) => c.source).slice(1)).toEqual(['hi', 'print(1)']);
      expect(before.metadata.threadlab).toMatchObject({ figures: { answers: 0, checked: 0, notFound: 0 } });
    });

    it('keeps the not-found figures bounded, their names inert, and a long answer cut; active markup as text', async () => {
      const many = Array.from({ length: 25 }, (_, i) => `${i + 1}.5 %`);
      many[0] = `\`${'9'.repeat(100)}`;
      const entry = answerEntry(
        `<img src=x onerror=alert(1)> ${'x'.repeat(EXPORT_LIMITS.maxMessageChars)}`,
        checked({ checked: 30, notFound: 25, notFoundTexts: many.slice(0, MAX_LISTED_NOT_FOUND), unchecked: 3 }),
        1,
      )!;
      expect(entry.kind).toBe('answer');
      if (entry.kind !== 'answer') return;
      expect(entry.text.length).toBeLessThanOrEqual(EXPORT_LIMITS.maxMessageChars + 100);
      expect(entry.omitted).toEqual([expect.stringMatching(/characters from the middle of an answer/)]);
      expect(entry.figures!.notFoundTexts).toHaveLength(MAX_LISTED_NOT_FOUND);
      expect(entry.figures!.notFoundTexts[0]).toHaveLength(MAX_RECORDED_FIGURE_CHARS);
      expect(entry.figures!.notFoundTexts[0]!.endsWith('…')).toBe(true);
      expect(JSON.stringify(entry.figures)).not.toContain('marks');
      const notebook = buildNotebook({ log: { entries: [entry], dropped: 0 }, exportedAt: at });
      await validateNotebook(JSON.stringify(notebook));
      const source = notebook.cells[1]!.source;
      expect(source.startsWith('```text\n<img src=x onerror=alert(1)> xxx')).toBe(true);
      expect(source).toContain('_Shown as text: it held');
      expect(source).toContain('30 checked against run output, 25 not found in any output: `');
      expect(source).toContain('`20.5 %` and 5 more, 3 figures past the limit not checked.');
      // A backtick in a figure's name cannot end its code span.
      expect(source).toContain(`\`${'9'.repeat(MAX_RECORDED_FIGURE_CHARS - 2)}…\``);
      expect(answerEntry('  ', undefined, 1)).toBeUndefined();
      const none = answerEntry(
        'It is one.',
        checked({ checked: 0, notFound: 0, notFoundTexts: [], verificationRound: false }),
        1,
      )!;
      const cell = buildNotebook({ log: { entries: [none], dropped: 0 }, exportedAt: at }).cells[1]!;
      expect(cell.source).toBe('It is one.\n\n_Figures: none to check._');
    });
  });
});
