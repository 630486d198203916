import { describe, expect, it } from 'vitest';
import { MAX_SQL_CHARS, readSourceCall } from '../../../src/interpreter/query/source-tools.js';
import { readSqlFence } from '../../../src/interpreter/query/sql-fence.js';
import { frameName, nextQueryNumber, queryFileName } from '../../../src/interpreter/query/query-names.js';
import { loadCode, pandasReading, PREVIEW_ROWS } from '../../../src/interpreter/query/load-code.js';
import { callsFromText } from '../../../src/interpreter/text-protocol.js';
import { parseDirectQuery } from '../../../src/core/read-intent.js';

const call = (name: string, args: unknown) => ({
  name,
  arguments: typeof args === 'string' ? args : JSON.stringify(args),
});

describe('source tool calls', () => {
  it('reads query_source and the names SQL agents use, with the SQL under their keys', () => {
    expect(readSourceCall(call('query_source', { source: 'sales', sql: 'SELECT 1' }), ['sales'])).toEqual({
      kind: 'query',
      source: 'sales',
      sql: 'SELECT 1',
    });
    for (const name of ['sql', 'run_sql', 'query', 'functions.execute_sql'])
      expect(readSourceCall(call(name, { database: 'sales', query: 'SELECT 2' }), ['sales', 'hr'])).toMatchObject({
        kind: 'query',
        source: 'sales',
        sql: 'SELECT 2',
      });
    expect(readSourceCall(call('list_tables', {}), ['sales'])).toEqual({ kind: 'list' });
    expect(readSourceCall(call('run_code', { code: 'print(1)' }), ['sales'])).toBeUndefined();
  });

  it('takes raw SQL as the arguments, and the only source when none is named', () => {
    expect(readSourceCall(call('sql', 'SELECT region FROM orders'), ['sales'])).toEqual({
      kind: 'query',
      source: 'sales',
      sql: 'SELECT region FROM orders',
    });
  });

  it('says what is missing or too long, in words for the model', () => {
    const noSource = readSourceCall(call('query_source', { sql: 'SELECT 1' }), ['sales', 'hr']);
    expect(noSource).toMatchObject({ kind: 'invalid' });
    expect(noSource?.kind === 'invalid' && noSource.error).toMatch(/needs the source.*"sales" \| "hr"/);
    expect(readSourceCall(call('query_source', { source: 'sales' }), ['sales'])).toMatchObject({ kind: 'invalid' });
    const long = readSourceCall(call('query_source', { source: 'sales', sql: 'x'.repeat(MAX_SQL_CHARS + 1) }), [
      'sales',
    ]);
    expect(long?.kind === 'invalid' && long.error).toMatch(/over the 20000 allowed/);
  });
});

describe('the sql fence', () => {
  it('reads the source from the first line in each accepted spelling', () => {
    for (const first of [
      '-- source: sales',
      '--source=sales',
      '-- source sales',
      '-- SOURCE: Sales;',
      'sales:',
      '-- sales',
    ])
      expect(readSqlFence(`${first}\nSELECT 1`, ['sales', 'hr'])).toEqual({ source: 'sales', sql: 'SELECT 1' });
    expect(readSqlFence('SELECT 1', ['sales', 'hr'], 'source=hr')).toEqual({ source: 'hr', sql: 'SELECT 1' });
    expect(readSqlFence('-- source: sales\n-- name: by_region\nSELECT 1', ['sales'])).toEqual({
      source: 'sales',
      name: 'by_region',
      sql: 'SELECT 1',
    });
  });

  it('keeps an ordinary comment in the SQL, and names no source when several exist and none is named', () => {
    expect(readSqlFence('-- revenue per region\nSELECT 1', ['sales', 'hr'])).toEqual({
      sql: '-- revenue per region\nSELECT 1',
    });
    expect(readSqlFence('SELECT 1', ['sales'])).toEqual({ source: 'sales', sql: 'SELECT 1' });
  });

  it('is a query_source call in the text protocol, in order with the code blocks, and not prose', () => {
    const text = 'First the data:\n```sql\n-- source: sales\nSELECT 1\n```\nthen\n```python\nprint(sales_q1)\n```\n';
    const read = callsFromText(text, { round: 1, languages: ['python'], sourceNames: ['sales'] });
    expect(read.calls.map((c) => c.name)).toEqual(['query_source', 'run_code']);
    expect(JSON.parse(read.calls[0]!.arguments)).toEqual({ source: 'sales', sql: 'SELECT 1' });
    expect(read.prose).not.toContain('SELECT');
    // Without sources an sql block is not run, and the model is told.
    expect(callsFromText(text, { round: 1, languages: ['python'] }).other).toEqual(['sql']);
  });

  it('makes a message that is one sql block a query to run as is', () => {
    expect(parseDirectQuery('```sql\n-- source: sales\nSELECT 1\n```')).toEqual({
      body: '-- source: sales\nSELECT 1',
      info: '',
    });
    expect(parseDirectQuery('```sql sales\nSELECT 1\n```')).toEqual({ body: 'SELECT 1', info: 'sales' });
    expect(parseDirectQuery('look:\n```sql\nSELECT 1\n```')).toBeUndefined();
  });
});

describe('names and the loading code', () => {
  it('numbers files per thread without reuse and makes safe names', () => {
    expect(nextQueryNumber(['data.csv', 'query_1_sales.csv', 'query_7_hr.csv'])).toBe(8);
    expect(queryFileName(3, 'Sales DB/2024')).toBe('query_3_sales_db_2024.csv');
    expect(frameName('revenue_by_region', 1, 'sales')).toBe('revenue_by_region');
    expect(frameName('import', 2, 'sales')).toBe('sales_q2');
    expect(frameName('bad name', 2, '2024-sales')).toBe('s_2024_sales_q2');
  });

  it('reads dtypes from server types, parses dates, and prints a bounded preview', () => {
    expect(pandasReading('timestamp with time zone')).toEqual({ date: true });
    expect(pandasReading('bigint')).toEqual({ dtype: 'Int64' });
    expect(pandasReading('numeric(12,2)')).toEqual({ dtype: 'float64' });
    expect(pandasReading('character varying(20)')).toEqual({ dtype: 'string' });
    const code = loadCode({
      name: 'sales_q1',
      file: 'query_1_sales.csv',
      source: 'sales',
      sql: Array.from({ length: 30 }, (_, i) => `-- line ${i}`).join('\n'),
      columns: [
        { name: 'region', type: 'text' },
        { name: 'day', type: 'date' },
        { name: 'amount', type: 'numeric' },
      ],
    });
    expect(code).toContain(
      `sales_q1 = pd.read_csv("/mnt/data/query_1_sales.csv", dtype={"region": "string", "amount": "float64"}, parse_dates=["day"], skip_blank_lines=False)`,
    );
    // Text columns (by position: region is 0) get their empty strings back, apart from NULL.
    expect(code).toContain('for _j in (0,):');
    expect(code).toContain("sales_q1.iat[_i, _j] = ''");
    expect(code).toContain(`.head(${PREVIEW_ROWS})`);
    expect(code).toContain('… (18 more lines)');
  });
});
