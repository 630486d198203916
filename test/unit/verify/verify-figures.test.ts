import { describe, expect, it } from 'vitest';
import type { OutputSource } from '../../../src/verify/figure.js';
import { verifyFigures } from '../../../src/verify/verify-figures.js';

const stdout = (text: string, run: number | string = 1): OutputSource => ({ run, kind: 'stdout', text });
/** Whether `answer`'s one figure is found in an output printing `printed`. */
const foundIn = (answer: string, printed: string): boolean => {
  const result = verifyFigures({ answer, outputs: [stdout(printed)] });
  expect(result.checks, answer).toHaveLength(1);
  return result.checks[0]!.found !== null;
};

describe('verifyFigures: precision as the answer states it', () => {
  it('finds a figure that the output rounds to, and not one it does not', () => {
    expect(foundIn('mean 12.35', 'mean = 12.3456')).toBe(true);
    expect(foundIn('mean 12.4', 'mean = 12.3456')).toBe(false);
    expect(foundIn('mean 12.3', 'mean = 12.3456')).toBe(true);
    expect(foundIn('mean 12', 'mean = 12.3456')).toBe(true);
    // Truncation is not rounding: 12.3456 does not read 12.34.
    expect(foundIn('mean 12.34', 'mean = 12.3456')).toBe(false);
  });

  it('holds the answer to its own precision both ways: a more precise figure needs a more precise output', () => {
    expect(foundIn('mean 12.346', 'mean = 12.35')).toBe(false);
    expect(foundIn('mean 12.350', 'mean = 12.35')).toBe(true);
  });

  it('accepts a value exactly halfway rounded either way (half-up and half-even)', () => {
    expect(foundIn('x 0.13', 'x = 0.125')).toBe(true); // half-up
    expect(foundIn('x 0.12', 'x = 0.125')).toBe(true); // half-even
    expect(foundIn('x 12.35', 'x = 12.345')).toBe(true); // 12.345 is not exact in binary
    expect(foundIn('x 12', 'x = 12.5')).toBe(true);
    expect(foundIn('x 13', 'x = 12.5')).toBe(true);
    expect(foundIn('x 13', 'x = 12.4999')).toBe(false);
  });

  it('matches grouped integers to unrounded output', () => {
    expect(foundIn('total 1,234 rows', '1234.0')).toBe(true);
    expect(foundIn('total 1,234 rows', 'sum: 1234.4')).toBe(true);
    expect(foundIn('total 1,234 rows', 'sum: 1234.6')).toBe(false);
    expect(foundIn('total 1,234,567', 'total 1,234,567')).toBe(true);
  });

  it('finds a percentage as printed or as a fraction, at the stated precision', () => {
    expect(foundIn('share 45 %', 'share 0.4512')).toBe(true);
    expect(foundIn('share 45%', 'share: 45.12%')).toBe(true);
    expect(foundIn('share 45.1%', 'share 0.4512')).toBe(true);
    expect(foundIn('share 45.2%', 'share 0.4512')).toBe(false);
    expect(foundIn('share 46%', 'share 0.4512')).toBe(false);
  });

  it('finds a suffixed figure in full or in its own unit', () => {
    expect(foundIn('users: 3.4M', '3412345')).toBe(true);
    expect(foundIn('users: 3.4M', '3462345')).toBe(false);
    expect(foundIn('users: 3.4M', 'users (millions): 3.41')).toBe(true);
    expect(foundIn('cost £3.4k', 'cost 3,390.20')).toBe(true);
    expect(foundIn('raised $2bn', '1999000000')).toBe(true);
  });

  it('requires the sign to match', () => {
    expect(foundIn('change −12', 'change: -12.0')).toBe(true);
    expect(foundIn('change -12', 'change: 12.0')).toBe(false);
    expect(foundIn('change 12', 'change: -12.0')).toBe(false);
    // A hyphen inside a date or a range in output is not a minus.
    expect(foundIn('change -5', '2024-05-01')).toBe(false);
  });

  it('reads scientific notation in outputs and in answers', () => {
    expect(foundIn('n = 1,234,000', 'n = 1.234e+06')).toBe(true);
    expect(foundIn('p = 1.2e-5', 'p = 1.23456e-05')).toBe(true);
    expect(foundIn('p = 1.2×10^-5', 'p = 0.0000118')).toBe(true);
    expect(foundIn('p = 1.3e-5', 'p = 1.23456e-05')).toBe(false);
    expect(foundIn('p = 12.5', 'p = 1.25E+01')).toBe(true);
  });

  it("finds figures of a Markdown table in a table output, and a CSV file's fields", () => {
    const answer = '| region | sales | share |\n|---|---:|---:|\n| north | 1,234.5 | 45.2% |\n| south | 987 | 54.8% |';
    const table: OutputSource = {
      run: 2,
      kind: 'table',
      text: 'region    sales  share\nnorth  1234.52  0.452\nsouth   987.00  0.548',
    };
    const result = verifyFigures({ answer, outputs: [table] });
    expect(result.checks.map((c) => c.found?.line)).toEqual([2, 2, 3, 3]);
    const csv: OutputSource = { run: 3, kind: 'file', text: 'a,b\n12,345\n' };
    expect(verifyFigures({ answer: 'b is 345', outputs: [csv] }).checks[0]!.found).toMatchObject({ run: 3, line: 2 });
  });
});

describe('verifyFigures: where it was found', () => {
  it('names the run, the output kind, the line and the number as printed', () => {
    const outputs: OutputSource[] = [
      stdout('loading\nrows: 400\n', 1),
      { run: 2, kind: 'result', text: 'x\n\n\nmean    12.3456\nmedian  11.9' },
    ];
    const result = verifyFigures({ answer: 'Mean 12.35, median 11.90, over 400 rows; 77.7 invented.', outputs });
    expect(result.checks.map((c) => c.found)).toEqual([
      { run: 2, kind: 'result', line: 4, text: '12.3456' },
      { run: 2, kind: 'result', line: 5, text: '11.9' },
      { run: 1, kind: 'stdout', line: 2, text: '400' },
      null,
    ]);
    expect(result.checks[3]!.figure.text).toBe('77.7');
  });

  it('prefers the printed value nearest the figure when several round to it', () => {
    const result = verifyFigures({ answer: 'about 12', outputs: [stdout('11.6\n12.4\n12.01\n')] });
    expect(result.checks[0]!.found).toMatchObject({ line: 3, text: '12.01' });
  });
});

describe('verifyFigures: bounded cost, limits reported', () => {
  it('checks at most maxFigures figures and counts the rest', () => {
    const answer = Array.from({ length: 250 }, (_, i) => `${100 + i}.5`).join(', ');
    const result = verifyFigures({ answer, outputs: [stdout('100.5')], maxFigures: 200 });
    expect(result).toMatchObject({ figuresTotal: 250, figuresUnchecked: 50 });
    expect(result.checks).toHaveLength(200);
    expect(result.checks[0]!.found).not.toBeNull();
  });

  it('scans at most maxOutputChars of output, cut at a line, and says how much it left out', () => {
    const early = stdout(`${'filler 0.5\n'.repeat(10)}late 99.25\n`, 1);
    const late = stdout('77.125\n', 2);
    const result = verifyFigures({ answer: 'We saw 99.25 and 77.125.', outputs: [early, late], maxOutputChars: 115 });
    expect(result.output).toEqual({ totalChars: early.text.length + late.text.length, scannedChars: 110 });
    expect(result.checks.map((c) => c.found)).toEqual([null, null]);
    // Within one long line the cut falls after a whitespace: "77.125" is not read as 77.12.
    const oneLine = verifyFigures({ answer: 'It was 77.12.', outputs: [stdout('x 77.125 y')], maxOutputChars: 7 });
    expect(oneLine.output.scannedChars).toBe(2);
    expect(oneLine.checks[0]!.found).toBeNull();
    const all = verifyFigures({ answer: 'We saw 99.25 and 77.125.', outputs: [early, late] });
    expect(all.output.scannedChars).toBe(all.output.totalChars);
    expect(all.checks.map((c) => c.found?.run)).toEqual([1, 2]);
  });

  it('stays linear on a 1 MB line of digits, 100k numbers and regex-hostile text', () => {
    const cases: [string, () => { answer: string; outputs: OutputSource[] }][] = [
      ['1 MB of digits', () => ({ answer: '9'.repeat(1_000_000), outputs: [stdout('7'.repeat(1_000_000))] })],
      [
        '100k numbers',
        () => ({
          answer: Array.from({ length: 1000 }, (_, i) => `${i}.25`).join(' '),
          outputs: [stdout(Array.from({ length: 100_000 }, (_, i) => `${i * 0.37}`).join('\n'))],
        }),
      ],
      [
        'unclosed groups and separators',
        () => ({
          answer: `${'1,234'.repeat(50_000)} ${'1 234 '.repeat(50_000)} ${'1.'.repeat(100_000)} ${'-'.repeat(100_000)}1`,
          outputs: [stdout(`${'1,234'.repeat(100_000)}${'1e'.repeat(100_000)}${'.5'.repeat(100_000)}`)],
        }),
      ],
      [
        'backticks and letters',
        () => ({
          answer: `${'`a'.repeat(100_000)} ${'a1'.repeat(100_000)} ${'Step '.repeat(50_000)}12.5`,
          outputs: [stdout('x'.repeat(1_000_000))],
        }),
      ],
    ];
    for (const [name, make] of cases) {
      const input = make();
      const started = performance.now();
      const result = verifyFigures(input);
      const ms = performance.now() - started;
      // A guard against catastrophic backtracking only (seconds, not ms); the bench measures the real cost.
      expect(ms, name).toBeLessThan(5_000);
      expect(result.output.scannedChars, name).toBe(result.output.totalChars);
      if (name === '1 MB of digits') expect(result.figuresTotal).toBe(0); // too long to be a stated figure
      if (name === '100k numbers') expect(result).toMatchObject({ figuresTotal: 1000, figuresUnchecked: 800 });
    }
    // The per-case guard above is the assertion; the test's own limit only has to outlast a loaded machine.
  }, 60_000);
});
