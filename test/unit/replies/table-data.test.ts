import { describe, expect, it } from 'vitest';
import type { ReplyTable } from '../../../src/domain/reply.js';
import { formatToolResult } from '../../../src/interpreter/tool-result.js';
import { buildReply } from '../../../src/replies/build-reply.js';
import { readTableData, TABLE_MIME } from '../../../src/domain/text/table-data.js';
import { monospaceTable, replyTextWithTables, tableCaption, tableCsvFile } from '../../../src/replies/table-text.js';
import { tableMessage } from '../../../adapters/slack/table-block.js';
import { tableMessage as discordTableMessage } from '../../../adapters/discord/table-message.js';
import { frameDisplay } from '../../support/table-frames.js';
import { MapSandbox, RecordingRenderer, run, turn } from './helpers.js';

const claim = (table: unknown) => ({ data: { 'text/plain': 'x', [TABLE_MIME]: JSON.stringify(table) } });
const valid = { columns: ['a'], dtypes: ['int64'], rows: [['1']], totalRows: 1, totalColumns: 1, indexColumns: 0 };

describe('readTableData: the sandbox claim is checked', () => {
  it('reads a valid table', () => {
    expect(readTableData(claim(valid))).toMatchObject({ columns: ['a'], rows: [['1']], totalRows: 1 });
  });

  it.each([
    ['a CSV path outside .threadlab/tables', { ...valid, totalRows: 5, csvPath: '../../etc/passwd' }],
    ['a CSV path with a directory in it', { ...valid, totalRows: 5, csvPath: '.threadlab/tables/../x.csv' }],
    ['a row of the wrong width', { ...valid, rows: [['1', '2']] }],
    ['more rows than the total', { ...valid, totalRows: 0 }],
    ['a negative total', { ...valid, totalRows: -1 }],
    ['too many rows', { ...valid, rows: Array.from({ length: 1001 }, () => ['1']), totalRows: 5000 }],
    ['a cell too long', { ...valid, rows: [['x'.repeat(1001)]] }],
    ['no columns', { ...valid, columns: [], rows: [] }],
    ['a number as a cell', { ...valid, rows: [[1]] }],
  ])('refuses %s', (_what, table) => {
    expect(readTableData(claim(table))).toBeUndefined();
  });

  it('refuses JSON that is not JSON, and JSON over 1 MB', () => {
    expect(readTableData({ data: { [TABLE_MIME]: '{"columns":' } })).toBeUndefined();
    expect(readTableData({ data: { [TABLE_MIME]: ' '.repeat(1024 * 1024 + 1) } })).toBeUndefined();
  });
});

const deps = (sandbox = new MapSandbox()) => ({
  sandbox,
  renderer: new RecordingRenderer(),
  threadKey: 'web:t1',
  limits: { maxImageDimensionPx: 2048, maxOutputLines: 60, maxFileBytes: 1 << 20 },
});

describe('buildReply: tables', () => {
  it("answers of the model carry the tables of their last run that displayed any; direct turns every run's", async () => {
    const runs = [run({ displays: [frameDisplay(3).display] }), run({ displays: [frameDisplay(4).display] })];
    const model = await buildReply(turn({ text: 'Here.', runs }), deps());
    expect(model.tables!.map((t) => t.totalRows)).toEqual([4]);
    const direct = await buildReply(turn({ direct: true, runs }), deps());
    expect(direct.tables!.map((t) => [t.number, t.totalRows])).toEqual([
      [1, 3],
      [2, 4],
    ]);
    expect(direct.text).not.toContain('r0'); // the table is not repeated as text
  });

  it('a direct run whose only output is a table has no "Done." above it; the CLI prints the table as text', async () => {
    const reply = await buildReply(
      turn({ direct: true, runs: [run({ displays: [frameDisplay(2).display] })] }),
      deps(),
    );
    expect(reply.text).toBe('');
    expect(replyTextWithTables(reply)).toBe(
      ['```text', 'n  sq  name', '-  --  ----', '0   0  r0', '1   1  r1', '```', 'Table 1: 2 rows × 3 columns.'].join(
        '\n',
      ),
    );
  });

  it("a table's CSV never takes the name of a file the code wrote", async () => {
    const mine = Buffer.from('mine\n');
    const sandbox = new MapSandbox(new Map([['table-1.csv', mine]]));
    const r = run({
      displays: [frameDisplay(150, { namePad: 30 }).display],
      artifacts: [{ path: 'table-1.csv', bytes: mine.length, mime: 'text/csv', change: 'created' }],
    });
    const reply = await buildReply(turn({ direct: true, runs: [r] }), deps(sandbox));
    expect(reply.files.map((f) => f.name)).toEqual(['table-1.csv']);
    expect(reply.omitted![0]!.name).toBe('table-1 (2).csv');
    const whole = await buildReply(
      turn({
        direct: true,
        runs: [{ ...r, result: { ...r.result, displays: [frameDisplay(100, { namePad: 30 }).display] } }],
      }),
      deps(sandbox),
    );
    const message = discordTableMessage(whole.tables![0]!);
    expect(message.files.map((f) => f.name)).toEqual(['table-1 (2).csv']);
    expect(message.content).toContain('every row is in `table-1 (2).csv`');
  });

  it('shows at most 5 tables and says how many there were', async () => {
    const displays = Array.from({ length: 7 }, (_, i) => frameDisplay(i + 1).display);
    const reply = await buildReply(turn({ direct: true, runs: [run({ displays })] }), deps());
    expect(reply.tables!.map((t) => t.totalRows)).toEqual([3, 4, 5, 6, 7]);
    expect(reply.text).toContain('The runs displayed 7 tables; the last 5 are shown.');
  });

  it('a cut table whose CSV cannot be read is listed as omitted and its caption says so', async () => {
    const reply = await buildReply(
      turn({ direct: true, runs: [run({ displays: [frameDisplay(500).display] })] }),
      deps(),
    );
    const table = reply.tables![0]!;
    expect(table.csvName).toBeUndefined();
    expect(reply.omitted![0]).toMatchObject({ name: 'table-1.csv' });
    expect(tableCaption(table, { rows: 100, columns: 3 })).toMatch(
      /^Table 1: 500 rows × 3 columns, showing the first 100 rows\. The full table is not attached: the CSV of table 1 could not be read/,
    );
  });

  it('a CSV the file limit stopped says how many rows it holds', async () => {
    const { display, csv } = frameDisplay(500);
    const json = JSON.parse(display.data[TABLE_MIME]!) as Record<string, unknown>;
    display.data[TABLE_MIME] = JSON.stringify({ ...json, csvRows: 250 });
    const sandbox = new MapSandbox(new Map([[csv!.path, csv!.data]]));
    const reply = await buildReply(turn({ direct: true, runs: [run({ displays: [display] })] }), deps(sandbox));
    expect(reply.files[0]).toMatchObject({ name: 'table-1.csv', description: 'table 1, the first 250 of 500 rows' });
    expect(tableCaption(reply.tables![0]!, { rows: 100, columns: 3 })).toBe(
      'Table 1: 500 rows × 3 columns, showing the first 100 rows; `table-1.csv` holds the first 250 rows (the file size limit).',
    );
  });
});

const wide = (columns: number, rows: number, cell = 'v'): ReplyTable => ({
  columns: Array.from({ length: columns }, (_, i) => `c${i}`),
  numeric: Array.from({ length: columns }, () => false),
  rows: Array.from({ length: rows }, (_, r) => Array.from({ length: columns }, (_, c) => `${cell}${r}.${c}`)),
  totalRows: rows,
  totalColumns: columns,
  whole: true,
  number: 1,
});

describe('table layout per surface', () => {
  it('Slack: at most 20 columns and 10,000 characters of cells, and a CSV of the whole table then', () => {
    const t = tableMessage(wide(30, 100, 'x'.repeat(40)));
    const block = t.blocks[0] as unknown as { rows: unknown[][]; column_settings: unknown[] };
    expect(block.rows[0]).toHaveLength(20);
    expect(block.column_settings).toHaveLength(20);
    const chars = (block.rows as { text: string }[][]).flat().reduce((n, c) => n + c.text.length, 0);
    expect(chars).toBeLessThanOrEqual(10_000);
    expect(t.text).toMatch(/showing the first \d+ rows and the first 20 columns; every row is in `table-1.csv`/);
    expect(t.file?.name).toBe('table-1.csv');
    expect(t.file!.data.toString().split('\r\n')[0]!.split(',')).toHaveLength(30);
  });

  it('Discord: a message of at most 2,000 characters, even with 100 long cells in a row', () => {
    const m = discordTableMessage(wide(100, 100, 'y'.repeat(200)));
    expect(m.content.length).toBeLessThanOrEqual(2000);
    expect(m.files[0]?.name).toBe('table-1.csv');
  });

  it('monospace keeps the header even when no row fits', () => {
    const { text, shown } = monospaceTable(wide(2, 50), { maxChars: 20 });
    expect(text.split('\n')[0]).toMatch(/^c0\s+c1$/);
    expect(shown.rows).toBe(0);
  });

  it('the CSV of a table quotes commas, quotes and line breaks', () => {
    const t = { ...wide(2, 1), rows: [['a,b', 'say "hi"\nthen']] };
    expect(tableCsvFile(t).data.toString()).toBe('c0,c1\r\n"a,b","say ""hi""\nthen"\r\n');
  });
});

describe('what the model receives of a table', () => {
  it("pandas' text, never the table JSON or the runner's CSV", () => {
    const { display, csv } = frameDisplay(10_000);
    const text = formatToolResult({
      ...run({ displays: [display] }).result,
      artifacts: [
        { path: csv!.path, bytes: csv!.data.length, mime: 'text/csv', change: 'created' },
        { path: 'mine.csv', bytes: 10, mime: 'text/csv', change: 'created' },
      ],
    });
    expect(text).toContain('[10000 rows x 3 columns]');
    expect(text).toContain('/mnt/data/mine.csv');
    expect(text).not.toContain('.threadlab/tables');
    expect(text).not.toContain('totalRows');
  });
});
