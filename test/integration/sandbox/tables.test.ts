import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLE_MIME } from '../../../src/domain/text/table-data.js';
import { makeSandbox, type TestSandbox } from './helpers.js';

// Issue 18 (real tables, plot noise) against the real engine and the real runner.
let t: TestSandbox;
const MAX_FILE_BYTES = 256 * 1024;

beforeAll(async () => {
  t = await makeSandbox('tables', { maxFileBytes: MAX_FILE_BYTES, dataMb: 64 });
});
afterAll(async () => {
  await t?.close();
});

const tableOf = (display: { data: Record<string, string> } | undefined) =>
  JSON.parse(display?.data[TABLE_MIME] ?? 'null') as Record<string, unknown> | null;

describe('DataFrame displays carry a bounded table', () => {
  it('a 10,000-row frame: the first 100 rows as strings, the total, and every row in a CSV', async () => {
    const result = await t.sandbox.run('s1', {
      language: 'python',
      code: [
        'import pandas as pd',
        'df = pd.DataFrame({"n": range(10_000), "sq": [i * i for i in range(10_000)], "name": [f"r{i}" for i in range(10_000)]})',
        'df',
      ].join('\n'),
    });
    expect(result.status).toBe('ok');
    expect(result.displays).toHaveLength(1);
    const display = result.displays[0]!;
    // text/plain and text/html stay as pandas makes them: the model reads text/plain.
    expect(display.data['text/plain']).toContain('[10000 rows x 3 columns]');
    expect(display.data['text/html']).toContain('<table');
    const table = tableOf(display)!;
    expect(table).toMatchObject({ columns: ['n', 'sq', 'name'], totalRows: 10_000, totalColumns: 3, indexColumns: 0 });
    expect(table.dtypes).toEqual(['int64', 'int64', 'object']);
    expect(table.rows).toHaveLength(100);
    expect((table.rows as string[][])[99]).toEqual(['99', '9801', 'r99']);
    expect(table.csvPath).toMatch(/^\.threadlab\/tables\/table-\d+\.csv$/);
    expect(table.csvRows).toBe(10_000);
    const csv = (await t.sandbox.readFile('s1', table.csvPath as string)).toString('utf8');
    expect(csv.length).toBe(table.csvBytes);
    const lines = csv.trimEnd().split('\n');
    expect(lines).toHaveLength(10_001);
    expect(lines[0]).toBe('n,sq,name');
    expect(lines[10_000]).toBe('9999,99980001,r9999');
  });

  it('a small frame is whole: every row, its index, and no CSV', async () => {
    const result = await t.sandbox.run('s1', {
      language: 'python',
      code: 'pd.DataFrame({"city": ["Oslo", "Lima"], "temp": [3.5, 19.25]}).set_index("city")',
    });
    const table = tableOf(result.displays[0])!;
    expect(table).toMatchObject({
      columns: ['city', 'temp'],
      dtypes: ['index', 'float64'],
      rows: [
        ['Oslo', '3.5'],
        ['Lima', '19.25'],
      ],
      totalRows: 2,
      indexColumns: 1,
    });
    expect(table.csvPath).toBeUndefined();
  });

  it('the CSV of a cut table stops at the file limit and says how many rows it holds', async () => {
    const result = await t.sandbox.run('s1', {
      language: 'python',
      code: 'pd.DataFrame({"text": ["x" * 100] * 20_000})',
    });
    const table = tableOf(result.displays[0])!;
    expect(table.totalRows).toBe(20_000);
    expect(table.csvBytes as number).toBeLessThanOrEqual(MAX_FILE_BYTES);
    expect(table.csvRows as number).toBeGreaterThan(1000);
    expect(table.csvRows as number).toBeLessThan(20_000);
    const csv = (await t.sandbox.readFile('s1', table.csvPath as string)).toString('utf8');
    expect(csv.trimEnd().split('\n')).toHaveLength((table.csvRows as number) + 1);
  });

  it('a Series is a table too: value_counts keeps its index as the first column', async () => {
    const result = await t.sandbox.run('s1', {
      language: 'python',
      code: 'pd.Series(["a", "b", "a"], name="letter").value_counts()',
    });
    expect(tableOf(result.displays[0])).toMatchObject({
      columns: ['letter', 'count'],
      dtypes: ['index', 'int64'],
      rows: [
        ['a', '2'],
        ['b', '1'],
      ],
      indexColumns: 1,
    });
  });

  it('long cells and wide frames are cut in the display and whole in the CSV', async () => {
    const result = await t.sandbox.run('s1', {
      language: 'python',
      code: 'pd.DataFrame([[("v" * 500) if c == 0 else c for c in range(80)]])',
    });
    const table = tableOf(result.displays[0])!;
    expect(table.totalColumns).toBe(80);
    expect(table.columns).toHaveLength(50);
    expect((table.rows as string[][])[0]![0]).toHaveLength(200);
    const csv = (await t.sandbox.readFile('s1', table.csvPath as string)).toString('utf8');
    expect(csv).toContain('v'.repeat(500));
  });
});

describe('matplotlib return values are not output when a figure was captured', () => {
  const textDisplays = (r: { displays: { data: Record<string, string> }[] }) =>
    r.displays.filter((d) => !d.data['image/png']).map((d) => d.data['text/plain']);

  it.each([
    ['plt.title', 'import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.title("t")'],
    ['plt.plot', 'plt.plot([1, 2, 3])'],
    ['plt.bar', 'plt.bar(["a", "b"], [1, 2])'],
    ['plt.hist', 'plt.hist([1, 2, 2, 3])'],
    ['plt.subplots', 'plt.subplots(1, 2)'],
    ['an Axes after plt.show()', 'fig, ax = plt.subplots()\nax.plot([1])\nplt.show()\nax'],
  ])('%s: only the chart', async (_name, code) => {
    const result = await t.sandbox.run('s1', { language: 'python', code });
    expect(result.status).toBe('ok');
    expect(result.displays.filter((d) => d.data['image/png']).length).toBeGreaterThan(0);
    expect(textDisplays(result)).toEqual([]);
  });

  it('without a figure the same kind of value is shown, and other values always are', async () => {
    const noFigure = await t.sandbox.run('s1', {
      language: 'python',
      code: 'import matplotlib.text as mtext\nplt.close("all")\nmtext.Text(0.5, 1.0, "t")',
    });
    expect(noFigure.displays.map((d) => d.data['text/plain'])).toEqual(["Text(0.5, 1.0, 't')"]);
    const value = await t.sandbox.run('s1', { language: 'python', code: 'plt.plot([1, 2])\n6 * 7' });
    expect(value.displays.some((d) => d.data['image/png'])).toBe(true);
    expect(textDisplays(value)).toEqual(['42']);
  });
});
