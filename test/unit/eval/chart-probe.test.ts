import { describe, expect, it } from 'vitest';
import { figureVerdict, parseFigures, type FigureRecord } from '../../../cli/eval/chart-probe.js';

/** Bars as the recorder notes them: x, y, width, height. */
const vertical = (heights: number[]) => heights.map((h, i) => [i - 0.4, 0, 0.8, h]);
const horizontal = (widths: number[]) => widths.map((w, i) => [0, i - 0.4, w, 0.8]);
const figure = (axes: FigureRecord['axes']): FigureRecord => ({ axes });

describe('checking the data a figure plots', () => {
  const regions = { values: [1040, 1079, 732, 901], ordered: false, decimals: 0 };
  const months = { values: [35, 26, 40], ordered: true, decimals: 0 };

  it('finds the values in vertical or horizontal bars, in any order when order does not matter', () => {
    expect(figureVerdict(regions, [figure([{ bars: vertical([901, 1040, 732, 1079]), lines: [] }])])).toEqual({
      correct: true,
    });
    expect(figureVerdict(regions, [figure([{ bars: horizontal([1040, 1079, 732, 901]), lines: [] }])]).correct).toBe(
      true,
    );
    expect(figureVerdict(regions, [figure([{ bars: vertical([1040, 1079, 732]), lines: [] }])])).toEqual({
      correct: false,
      reason: 'no figure plots the expected values',
    });
  });

  it('finds an ordered series in a line, and refuses it out of order or as running totals', () => {
    expect(figureVerdict(months, [figure([{ bars: [], lines: [[35, 26, 40]] }])]).correct).toBe(true);
    expect(figureVerdict(months, [figure([{ bars: [], lines: [[26, 35, 40]] }])]).correct).toBe(false);
    expect(figureVerdict(months, [figure([{ bars: [], lines: [[35, 61, 101]] }])]).correct).toBe(false);
    expect(figureVerdict(months, [figure([{ bars: vertical([35, 26, 40]), lines: [] }])]).correct).toBe(true);
  });

  it('looks at every figure and every axes, and says when there was none or the recorder was lost', () => {
    const other = figure([{ bars: vertical([1, 2]), lines: [] }]);
    const right = figure([
      { bars: [], lines: [] },
      { bars: [], lines: [[35, 26, 40]] },
    ]);
    expect(figureVerdict(months, [other, { error: 'boom' }, right]).correct).toBe(true);
    expect(figureVerdict(months, [])).toEqual({ correct: false, reason: 'no figure was drawn' });
    expect(figureVerdict(months, undefined).reason).toMatch(/unavailable/);
  });

  it('reads the recorder output from the run, and nothing when the interpreter lost it', () => {
    const axes = [{ bars: [[0, 0, 1, 2]], lines: [] }];
    expect(parseFigures(`noise\nTHREADLAB_EVAL_FIGURES=${JSON.stringify([{ axes }])}\n`)).toEqual([{ axes }]);
    expect(parseFigures('THREADLAB_EVAL_FIGURES=null\n')).toBeUndefined();
    expect(parseFigures('')).toBeUndefined();
  });
});
