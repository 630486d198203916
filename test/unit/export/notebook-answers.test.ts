import { describe, expect, it } from 'vitest';
import { MAX_LISTED_NOT_FOUND, MAX_RECORDED_FIGURE_CHARS, type AnswerFigures } from '../../../src/domain/figures.js';
import { answerEntry, buildNotebook, EXPORT_LIMITS, recordTurn } from '../../../src/export/index.js';
import type { ExportEntry } from '../../../src/ports/conversation-store.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { validateNotebook } from '../../support/nbformat.js';
import { at, run } from './turn-runs.js';

describe('notebook export: answers and the check of their figures', () => {
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
    const [first, second] = notebook.cells.filter((c) => (c.metadata.threadlab as { role: string }).role === 'answer');
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
