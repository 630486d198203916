import { describe, expect, it } from 'vitest';
import { extractFigures } from '../../../src/verify/answer-figures.js';

const texts = (answer: string) => extractFigures(answer).map((f) => f.text);
const one = (answer: string) => {
  const figures = extractFigures(answer);
  expect(figures, answer).toHaveLength(1);
  return figures[0]!;
};

describe('extractFigures: what is a claim', () => {
  it('reads integers and decimals with the decimals they are stated to', () => {
    expect(one('The mean is 12.35 here.')).toMatchObject({ value: 12.35, decimals: 2, percent: false, text: '12.35' });
    expect(one('We kept 412 rows.')).toMatchObject({ value: 412, decimals: 0 });
    expect(one('about .75 of them')).toMatchObject({ value: 0.75, decimals: 2, text: '.75' });
    expect(one('a ratio of 12.30')).toMatchObject({ value: 12.3, decimals: 2 });
  });

  it('gives each figure its span in the answer', () => {
    const answer = 'Revenue was $1,234.50 and growth 45 %.';
    for (const f of extractFigures(answer)) expect(answer.slice(f.start, f.end)).toBe(f.text);
    expect(texts(answer)).toEqual(['$1,234.50', '45 %']);
  });

  it('reads percentages written as %, " %", percent, per cent and pp', () => {
    for (const [written, value] of [
      ['45%', 45],
      ['45 %', 45],
      ['45.1 percent', 45.1],
      ['45 per cent', 45],
      ['3.2pp', 3.2],
      ['3.2 percentage points', 3.2],
    ] as const) {
      expect(one(`growth of ${written} overall`)).toMatchObject({ value, percent: true, text: written });
    }
  });

  it('reads thousands grouped by commas, spaces, no-break spaces and apostrophes', () => {
    expect(one('total 1,234,567 rows')).toMatchObject({ value: 1234567, decimals: 0 });
    expect(one('total 1 234 567 rows')).toMatchObject({ value: 1234567 });
    expect(one('total 1\u00a0234\u202f567 rows')).toMatchObject({ value: 1234567 });
    expect(one("total 1'234 rows")).toMatchObject({ value: 1234 });
    expect(one('total 1’234.5 rows')).toMatchObject({ value: 1234.5, decimals: 1 });
    // A group is exactly three digits: "May 1 2024" is not 12,024 (and both parts are refused as a date).
    expect(texts('on 5 2024 runs')).toEqual([]);
  });

  it('reads currency before a figure, with or without a sign', () => {
    expect(one('cost $1,234.50')).toMatchObject({ value: 1234.5, decimals: 2, currency: '$' });
    expect(one('cost €12')).toMatchObject({ value: 12, currency: '€' });
    expect(one('cost € 7.5')).toMatchObject({ value: 7.5, currency: '€', text: '€ 7.5' });
    expect(one('a loss of -$12')).toMatchObject({ value: -12, currency: '$', text: '-$12' });
    expect(one('a loss of $-12')).toMatchObject({ value: -12, currency: '$' });
    expect(one('cost US$5')).toMatchObject({ value: 5, currency: '$' });
  });

  it('scales k, M, bn, B and words, stated to the significant digits written', () => {
    expect(one('users: 3.4M')).toMatchObject({
      value: 3_400_000,
      decimals: -5,
      significantDigits: 2,
      mantissa: { value: 3.4, decimals: 1 },
    });
    expect(one('cost £3.4k')).toMatchObject({ value: 3400, decimals: -2, currency: '£' });
    expect(one('cap $2bn')).toMatchObject({ value: 2e9, decimals: -9 });
    expect(one('a 7B model')).toMatchObject({ value: 7e9 });
    expect(one('12k rows')).toMatchObject({ value: 12_000, decimals: -3, significantDigits: 2 });
    expect(one('1.50 million rows')).toMatchObject({ value: 1_500_000, decimals: -4, significantDigits: 3 });
    expect(one('raised $3m')).toMatchObject({ value: 3e6 });
    // Without a currency "m" is metres, and letters glued to more letters are a unit, not a suffix.
    expect(one('ran 30m')).toMatchObject({ value: 30, decimals: 0 });
    expect(one('uses 16GB')).toMatchObject({ value: 16 });
  });

  it('reads negatives with a hyphen-minus or U+2212, and an explicit plus', () => {
    expect(one('change −12 points')).toMatchObject({ value: -12, text: '−12' });
    expect(one('change -12.5 points')).toMatchObject({ value: -12.5 });
    expect(one('change (−3.2) points')).toMatchObject({ value: -3.2 });
    expect(one('change +15%')).toMatchObject({ value: 15, percent: true, text: '+15%' });
    // A small count is a claim once it has a sign.
    expect(one('delta -3 overall')).toMatchObject({ value: -3 });
  });

  it('reads scientific notation as e-notation, ×10^ and superscripts', () => {
    for (const written of [
      '1.2e-5',
      '1.2E-05',
      '1.2×10^-5',
      '1.2 × 10^-5',
      '1.2x10^{-5}',
      '1.2*10**-5',
      '1.2 × 10⁻⁵',
    ]) {
      expect(one(`p = ${written} here`)).toMatchObject({
        value: 0.000012,
        decimals: 6,
        significantDigits: 2,
        text: written,
      });
    }
    expect(one('n ≈ 1.234e+06')).toMatchObject({ value: 1_234_000, decimals: -3, significantDigits: 4 });
  });

  it('reads figures inside Markdown tables', () => {
    const table = [
      '| city | 2024 sales | share |',
      '|---|---:|:---:|',
      '| Oslo | 1,234.5 | 45.2% |',
      '| Rome | 987 | -3.5% |',
    ];
    expect(texts(table.join('\n'))).toEqual(['1,234.5', '45.2%', '987', '-3.5%']);
  });

  it('keeps units glued to a figure ("12ms", "2.5x") and compound words ("12-month")', () => {
    expect(texts('took 12ms, 2.5x faster over a 12-month window')).toEqual(['12', '2.5', '12']);
  });

  it('reads both ends of a numeric range when its first number is a claim', () => {
    expect(texts('between 15-25 items')).toEqual(['15', '25']);
  });
});

describe('extractFigures: what is not a claim', () => {
  const none = (answer: string) => expect(texts(answer), answer).toEqual([]);

  it('refuses years, alone, in dates and as decades', () => {
    none('In 2024 sales rose.');
    none('Since 1999 and until 2100.');
    none('The 1990s were different.');
    none('On 2024-05-01 and 2024-05-01T09:30:00Z.');
    none('On 12/05/2024 or 5/1.');
    none('On May 1, 2024 and on 3 March 2023 and the 12th of June.');
  });

  it('refuses times of day and ratios', () => {
    none('At 09:30 and 17:45:10.');
    none('At 11am or 11 pm or 12 a.m.');
    none('A 3:1 split and 16:9 screens.');
  });

  it('refuses list numbering at a line start, and labels such as Step 2 or line 14', () => {
    none('1. Load the data\n2) Clean it\n  13. Fit the model');
    none('Step 12 and Section 14 and Table 12, Fig. 13, No. 12.');
    none('See line 14 of run 12, row 45 and column 13.');
  });

  it('refuses versions, dotted chains and addresses', () => {
    none('Python 3.13 and pandas 2.2 and version 11.4.');
    none('v2.2.1 and 1.2.3 and 192.168.0.1 and x86_64');
  });

  it('refuses ids and hashes', () => {
    none('abc123, #4521, @12, commit 4bb3141, 3f2a9c, 0x1F, FY2024, gpt-4o, Q3, COVID-19');
    none('id 550e8400-e29b-41d4-a716-446655440000 and 12345678-1234-5678-1234-567812345678');
    none('file report_2023.csv and data-17.json');
  });

  it('refuses numbers in inline code, fenced code blocks and links', () => {
    none('Run `df.head(20)` or ``x = 42.5``.');
    none('```python\nx = 42.5\nprint(1234)\n```\n~~~\n99.9\n~~~');
    none('See https://example.test/items/4521?page=12.');
    expect(texts('`123` then 456 then ``x = 789`` then 321\n```\n555\n```\n654')).toEqual(['456', '321', '654']);
  });

  it('refuses bounds after a comparison and confidence levels, but not figures in a quote', () => {
    none('significant (p < 0.05, t ≥ 12.5, n > 30) at 95% CI and 90 % confidence');
    expect(texts('> 45% of users\n>> 12.5 on average')).toEqual(['45%', '12.5']);
  });

  it('refuses ordinals and fractions', () => {
    none('The 1st, 2nd, 3rd and 21st rows; 3/4 of them.');
  });

  it('refuses bare integers 0–10 as structural counts', () => {
    none('The table has 3 columns, 10 rows and 0 gaps, in 2 runs.');
    // Decorated, they are claims.
    expect(texts('3.0 and 5% and $7 and -2')).toEqual(['3.0', '5%', '$7', '-2']);
  });

  it('refuses digit runs too long to be a stated figure', () => {
    none(`hash ${'9'.repeat(40)}`);
  });
});
