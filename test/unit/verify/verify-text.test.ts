import { describe, expect, it } from 'vitest';
import type { OutputSource } from '../../../src/verify/figure.js';
import { verifyFigures } from '../../../src/verify/verify-figures.js';
import { figureMarks, figuresFooter, verificationRoundMessage } from '../../../src/verify/verify-text.js';

const outputs: OutputSource[] = [
  { run: 1, kind: 'stdout', text: 'rows 400\n' },
  { run: 2, kind: 'result', text: 'mean 12.3456\nmedian 11.9\nshare 0.4512\n' },
];
const check = (answer: string, more: Partial<Parameters<typeof verifyFigures>[0]> = {}) =>
  verifyFigures({ answer, outputs, ...more });

describe('figuresFooter', () => {
  it('says how many figures were checked when all were found', () => {
    expect(figuresFooter(check('Mean 12.35, median 11.9, share 45 %, over 400 rows.'))).toBe(
      '✓ 4 figures checked against run output',
    );
    expect(figuresFooter(check('Over 400 rows.'))).toBe('✓ 1 figure checked against run output');
  });

  it('names the figures not found, as written, up to a limit', () => {
    expect(figuresFooter(check('Mean 12.35 and share 12.4 %.'))).toBe('⚠ 1 figure not found in any output: 12.4 %');
    const answer = 'Values 71.5, 72.5, 73.5, 74.5 and 75.5, with mean 12.35.';
    expect(figuresFooter(check(answer))).toBe('⚠ 5 figures not found in any output: 71.5, 72.5, 73.5 and 2 more');
    expect(figuresFooter(check(answer), { maxListed: 5 })).toBe(
      '⚠ 5 figures not found in any output: 71.5, 72.5, 73.5, 74.5, 75.5',
    );
  });

  it('is empty when the answer states no figure', () => {
    expect(figuresFooter(check('The data looks clean; see step 3.'))).toBe('');
  });

  it('says when a limit left figures or output unchecked', () => {
    const answer = 'Mean 12.35, median 11.9 and 400 rows.';
    expect(figuresFooter(check(answer, { maxFigures: 1 }))).toBe(
      '✓ 1 figure checked against run output · 2 more figures not checked (limit reached)',
    );
    expect(figuresFooter(check(answer, { maxOutputChars: 9 }))).toBe(
      '⚠ 2 figures not found in any output: 12.35, 11.9 · 38 characters of output not scanned (limit reached)',
    );
  });
});

describe('figureMarks', () => {
  it('gives each checked figure its span and a title naming the run and line, or that it was not found', () => {
    const answer = 'Median 11.9, invented 77.7.';
    expect(figureMarks(check(answer))).toEqual([
      { start: 7, end: 11, text: '11.9', found: true, title: 'run 2, line 2' },
      { start: 22, end: 26, text: '77.7', found: false, title: 'not found in any output' },
    ]);
  });
});

describe('verificationRoundMessage', () => {
  it('names the figures no run printed and asks to compute or remove them', () => {
    expect(verificationRoundMessage(check('Mean 12.4 and 77.7 and 11.9.'))).toBe(
      'Your answer states figures that no run printed: 12.4, 77.7. Compute them with code, or remove them; then give the corrected answer.',
    );
    expect(verificationRoundMessage(check('Mean 12.4.'))).toBe(
      'Your answer states a figure that no run printed: 12.4. Compute it with code, or remove it; then give the corrected answer.',
    );
  });

  it('lists at most maxListed figures, and is undefined when nothing is missing', () => {
    expect(verificationRoundMessage(check('71.5, 72.5, 73.5'), { maxListed: 2 })).toContain(': 71.5, 72.5 and 1 more.');
    expect(verificationRoundMessage(check('Mean 12.35.'))).toBeUndefined();
  });
});
