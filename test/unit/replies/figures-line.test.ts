import { describe, expect, it } from 'vitest';
import type { AnswerFigures } from '../../../src/domain/figures.js';
import { figuresLine } from '../../../src/replies/figures-line.js';

const figures = (line: string, over: Partial<AnswerFigures> = {}): AnswerFigures => ({
  checked: 1,
  notFound: 0,
  notFoundTexts: [],
  unchecked: 0,
  line,
  marks: [],
  verificationRound: false,
  ...over,
});

describe('figuresLine', () => {
  it('is the line as the check wrote it', () => {
    const line = '⚠ 1 figure not found in any output: 12.4 %';
    expect(figuresLine({ figures: figures(line) }, 500)).toBe(line);
  });

  it('is nothing when the answer was not checked or states no figure', () => {
    expect(figuresLine({}, 500)).toBeUndefined();
    expect(figuresLine({ figures: figures('', { checked: 0 }) }, 500)).toBeUndefined();
  });

  it('cuts a line past the limit visibly, with an ellipsis, never inside a character', () => {
    const line = `⚠ 3 figures not found in any output: ${'9'.repeat(600)}`;
    const cut = figuresLine({ figures: figures(line) }, 100)!;
    expect(cut).toHaveLength(100);
    expect(cut.endsWith('…')).toBe(true);
    expect(line.startsWith(cut.slice(0, -1))).toBe(true);
    // An astral character (two UTF-16 units) at the cut is dropped whole.
    const astral = figuresLine({ figures: figures(`${'x'.repeat(8)}😀 more`) }, 10)!;
    expect(astral).toBe(`${'x'.repeat(8)}…`);
  });
});
