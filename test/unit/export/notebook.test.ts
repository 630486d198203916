import { describe, expect, it } from 'vitest';
import { buildNotebook, recordTurn, runEntry } from '../../../src/export/index.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { validateNotebook } from '../../support/nbformat.js';
import { at, PNG, run } from './turn-runs.js';

// What is left out: notebook-limits.test.ts, notebook-active-content.test.ts; answers: notebook-answers.test.ts.
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
});
