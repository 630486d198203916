import { describe, expect, it } from 'vitest';
import { intentOf } from '../../../src/core/read-intent.js';
import { fencedBlocks, isRunWord, scriptKindOf } from '../../../src/domain/code-cells.js';
import { isIntent } from '../../../src/domain/intent.js';
import type { InboundMessage } from '../../../src/domain/messages.js';
import { notebookCells } from '../../../src/domain/notebook-cells.js';

function message(text: string, extra: Partial<InboundMessage> = {}): InboundMessage {
  return {
    id: 'm1',
    thread: { platform: 'web', workspace: 'w', channel: 'c', thread: 't' },
    user: { id: 'u1' },
    text,
    attachments: [],
    receivedAtMs: 0,
    ...extra,
  };
}

const attach = (name: string, id = name) => ({ id, name });

describe('fencedBlocks', () => {
  it('reads every block of a message in order, labelled, unlabelled and in Slack’s own forms', () => {
    const text = [
      'First load it:',
      '```python',
      'import math',
      '```',
      'then in R',
      '```r',
      'x <- 1',
      '```',
      '```print(2)```',
      '```echo a',
      'echo b```',
      '```',
      'y = 3',
      '```',
    ].join('\n');
    expect(fencedBlocks(text)).toEqual({
      cells: [
        { language: 'python', code: 'import math' },
        { language: 'r', code: 'x <- 1' },
        { language: 'python', code: 'print(2)' },
        { language: 'python', code: 'echo a\necho b' },
        { language: 'python', code: 'y = 3' },
      ],
      skipped: [],
    });
  });

  it('skips blocks in languages the sandbox does not run and names them; empty blocks are nothing', () => {
    expect(fencedBlocks('```json\n{"a": 1}\n```\n```\n\n```\n```sh\nls\n```')).toEqual({
      cells: [{ language: 'bash', code: 'ls' }],
      skipped: ['json'],
    });
    expect(fencedBlocks('no code here, only `inline` code')).toEqual({ cells: [], skipped: [] });
  });

  it('runs an unclosed block to the end of the text, and keeps CRLF text whole', () => {
    expect(fencedBlocks('```py\r\nprint(1)\r\nprint(2)')).toEqual({
      cells: [{ language: 'python', code: 'print(1)\nprint(2)' }],
      skipped: [],
    });
  });
});

describe('notebookCells', () => {
  const nb = (cells: unknown[], metadata: unknown = {}) =>
    JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata, cells });

  it('reads the code cells in order, skips markdown and empty cells, joins list sources', () => {
    const text = nb([
      { cell_type: 'markdown', source: '# Title' },
      { cell_type: 'code', source: ['x = 1\n', 'print(x)'] },
      { cell_type: 'code', source: '' },
      { cell_type: 'raw', source: 'raw' },
      { cell_type: 'code', source: 'print(x + 1)' },
    ]);
    expect(notebookCells(text)).toEqual({
      cells: [
        { language: 'python', code: 'x = 1\nprint(x)' },
        { language: 'python', code: 'print(x + 1)' },
      ],
      markdownCells: 2,
    });
  });

  it('runs an R notebook as R, and refuses a kernel the sandbox does not run', () => {
    const r = notebookCells(nb([{ cell_type: 'code', source: 'x <- 1' }], { kernelspec: { language: 'R' } }));
    expect(r).toMatchObject({ cells: [{ language: 'r' }] });
    const julia = notebookCells(nb([{ cell_type: 'code', source: '1' }], { kernelspec: { language: 'julia' } }));
    expect(julia).toEqual({ invalid: expect.stringContaining('"julia"') });
  });

  it('says what is wrong with an invalid notebook', () => {
    expect(notebookCells('{not json')).toEqual({ invalid: expect.stringContaining('not valid JSON') });
    expect(notebookCells('[1,2]')).toEqual({ invalid: expect.stringContaining('not an object') });
    expect(notebookCells(JSON.stringify({ nbformat: 3, worksheets: [] }))).toEqual({
      invalid: expect.stringContaining('nbformat 3'),
    });
    expect(notebookCells(JSON.stringify({ nbformat: 4 }))).toEqual({ invalid: expect.stringContaining('`cells`') });
    expect(notebookCells(nb([{ cell_type: 'code', source: 42 }]))).toEqual({
      invalid: 'code cell 1 has no source text',
    });
    expect(notebookCells(nb(['x']))).toEqual({ invalid: 'cell 1 has no cell_type' });
  });
});

describe('intentOf: running what a message holds', () => {
  it('knows script extensions and the run word', () => {
    expect(['a.py', 'b.R', 'c.js', 'd.sh', 'e.ipynb', 'f.txt', '.py'].map(scriptKindOf)).toEqual([
      'python',
      'r',
      'javascript',
      'bash',
      'notebook',
      undefined,
      undefined,
    ]);
    expect(['run', ' /Run ', 'run it', 'running'].map(isRunWord)).toEqual([true, true, false, false]);
  });

  it('runs another message’s fenced blocks (runMessage), or its script when it has no blocks', () => {
    const text = 'Try this:\n```python\nprint(1)\n```\n```text\nout\n```';
    expect(intentOf(message(text, { command: { name: 'runMessage', text } }))).toEqual({
      kind: 'runCells',
      cells: [{ language: 'python', code: 'print(1)' }],
      skipped: ['text'],
    });
    const script = message('see attached', {
      command: { name: 'runMessage', text: 'see attached' },
      attachments: [attach('data.csv'), attach('job.py')],
    });
    expect(intentOf(script)).toEqual({ kind: 'runScript', attachment: 'job.py' });
    expect(intentOf(message('hello', { command: { name: 'runMessage', text: 'hello' } }))).toEqual({
      kind: 'runCells',
      cells: [],
      skipped: [],
    });
  });

  it('runs an attached script sent with "run", the named one among several, and says what is missing', () => {
    const files = [attach('data.csv'), attach('clean.py'), attach('plot.R')];
    expect(intentOf(message('run', { attachments: [attach('data.csv'), attach('nb.ipynb')] }))).toEqual({
      kind: 'runScript',
      attachment: 'nb.ipynb',
    });
    expect(intentOf(message('run plot.R', { attachments: files }))).toEqual({
      kind: 'runScript',
      attachment: 'plot.R',
    });
    expect(intentOf(message('run', { attachments: files }))).toMatchObject({
      kind: 'runScript',
      problem: expect.stringContaining('`run clean.py`'),
    });
    expect(intentOf(message('run data.csv', { attachments: files }))).toMatchObject({
      problem: expect.stringContaining('not a script'),
    });
    expect(intentOf(message('run x.py', { attachments: files }))).toMatchObject({
      problem: expect.stringContaining('No file named `x.py`'),
    });
    expect(intentOf(message('run'))).toMatchObject({
      kind: 'runScript',
      problem: expect.stringContaining('Nothing to run'),
    });
    // "run" with more words and no files is a question for the model, as before.
    expect(intentOf(message('run the numbers again'))).toEqual({ kind: 'ask', text: 'run the numbers again' });
  });

  it('reads the new intents back from a store, and refuses malformed ones', () => {
    expect(isIntent({ kind: 'runCells', cells: [{ language: 'python', code: 'x' }], skipped: [] })).toBe(true);
    expect(isIntent({ kind: 'runCells', cells: [{ language: 'cobol', code: 'x' }], skipped: [] })).toBe(false);
    expect(isIntent({ kind: 'runScript', attachment: 'f1' })).toBe(true);
    expect(isIntent({ kind: 'runScript', attachment: 3 })).toBe(false);
  });
});
