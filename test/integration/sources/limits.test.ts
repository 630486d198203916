import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDataSources } from '../../../adapters/postgres/postgres-data-sources.js';
import { DESCRIBE_LIMITS } from '../../../adapters/postgres/describe.js';
import { MAX_WAITING_PER_CONNECTION } from '../../../adapters/postgres/postgres-source.js';
import { createPool } from '../../../adapters/postgres/pool.js';
import { TypeNames } from '../../../adapters/postgres/type-names.js';
import { parseAllowlist } from '../../../src/config/access-lists.js';
import type { SourceScope } from '../../../src/ports/data-sources.js';
import { sourceOn, startPostgres, type PrivatePostgres } from '../../support/postgres-server.js';

const web: SourceScope = { platform: 'web', user: 'u1', place: 'web-thread' };

let pg: PrivatePostgres;
let sources: PostgresDataSources;
/** Statements of the reader's role the server is running now (pg_stat_activity, as the superuser). */
const running = async () =>
  Number(
    await pg.psql(
      "SELECT count(*) FROM pg_stat_activity WHERE usename = 'tl_reader' AND state <> 'idle' AND query NOT LIKE '%pg_cancel_backend%'",
    ),
  );
const waitIdle = async (ms: number) => {
  const deadline = Date.now() + ms;
  while ((await running()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return running();
};

beforeAll(async () => {
  pg = await startPostgres();
  const limits = (over: object) => ({
    statementTimeoutMs: 5000,
    maxRows: 100_000,
    maxBytes: 100 * 1024 * 1024,
    ...over,
  });
  sources = new PostgresDataSources({
    secrets: [pg.reader.password],
    sources: [
      sourceOn(pg, pg.reader, { name: 'sales', description: 'Sales by day', maxConnections: 1 }),
      sourceOn(pg, pg.reader, { name: 'quick', limits: limits({ statementTimeoutMs: 700 }) }),
      sourceOn(pg, pg.reader, { name: 'rows', limits: limits({ maxRows: 1000 }) }),
      sourceOn(pg, pg.reader, { name: 'bytes', limits: limits({ maxBytes: 4096 }) }),
      sourceOn(pg, pg.reader, {
        name: 'finance',
        allow: {
          places: parseAllowlist('slack:C0FINANCE', 'place'),
          users: parseAllowlist('slack:U0ANNA,discord:*', 'who'),
        },
      }),
    ],
  });
});
afterAll(async () => {
  await sources?.close();
  await pg?.stop();
});

describe('time limits', () => {
  it('a query past the statement timeout is cancelled on the server, nothing left running, and the reply names the limit', async () => {
    const outcome = await sources.query({ source: 'quick', sql: 'SELECT pg_sleep(30)', scope: web });
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'timeout',
      message: expect.stringMatching(/statement timeout \(700 ms\).*statementTimeoutMs/),
    });
    expect(outcome.ms).toBeLessThan(5000);
    expect(await waitIdle(2000)).toBe(0);
  });

  it('the timeout covers the whole read: a slow stream of rows is cancelled too', async () => {
    const sql = 'SELECT g, pg_sleep(0.002) FROM generate_series(1, 100000) g';
    const outcome = await sources.query({ source: 'quick', sql, scope: web });
    expect(outcome).toMatchObject({ ok: false, kind: 'timeout' });
    expect(outcome.ms).toBeLessThan(5000);
    expect(await waitIdle(2000)).toBe(0);
  });

  it('Stop cancels the query on the server', async () => {
    const stop = new AbortController();
    const pending = sources.query({ source: 'sales', sql: 'SELECT pg_sleep(30)', scope: web, signal: stop.signal });
    while ((await running()) === 0) await new Promise((r) => setTimeout(r, 20));
    stop.abort();
    const outcome = await pending;
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'stopped',
      message: expect.stringMatching(/stopped and cancelled on the server/),
    });
    expect(outcome.ms).toBeLessThan(5000);
    expect(await waitIdle(2000)).toBe(0);
    // The connection went back to the pool clean (maxConnections 1: the next query gets the same one).
    const next = await sources.query({ source: 'sales', sql: 'SELECT 1 AS one', scope: web });
    expect(next.ok && next.csv.toString()).toBe('one\r\n1\r\n');
  });

  it('a Stop before the query began runs nothing and says stopped', async () => {
    const outcome = await sources.query({
      source: 'sales',
      sql: 'SELECT pg_sleep(30)',
      scope: web,
      signal: AbortSignal.abort(),
    });
    expect(outcome).toMatchObject({ ok: false, kind: 'stopped' });
    expect(outcome.ms).toBeLessThan(2000);
  });

  it('queries beyond the pool and its bounded wait are told the source is busy', async () => {
    const max = MAX_WAITING_PER_CONNECTION * 1; // maxConnections 1
    const sleep = () => sources.query({ source: 'sales', sql: 'SELECT pg_sleep(0.5)', scope: web });
    const first = sleep();
    while ((await running()) === 0) await new Promise((r) => setTimeout(r, 10));
    const held = [first, ...Array.from({ length: max }, sleep)];
    const over = await sources.query({ source: 'sales', sql: 'SELECT 1', scope: web });
    expect(over).toMatchObject({
      ok: false,
      kind: 'unreachable',
      message: expect.stringMatching(/busy.*maxConnections/),
    });
    const done = await Promise.all(held);
    expect(done.every((o) => o.ok)).toBe(true);
  });
});

describe('caps', () => {
  it('the row cap cuts the result and says so; a result of exactly the cap is not cut', async () => {
    const cut = await sources.query({ source: 'rows', sql: 'SELECT id, region FROM sales ORDER BY id', scope: web });
    expect(cut).toMatchObject({ ok: true, rows: 1000, cut: 'rows' });
    expect(cut.ok && cut.csv.toString().trimEnd().split('\r\n')).toHaveLength(1001);
    // The rest was cancelled on the server, not read to the end.
    expect(await waitIdle(2000)).toBe(0);
    const exact = await sources.query({
      source: 'rows',
      sql: 'SELECT id FROM sales ORDER BY id LIMIT 1000',
      scope: web,
    });
    expect(exact.ok && exact.cut).toBeUndefined();
    expect(exact).toMatchObject({ rows: 1000 });
  });

  it('the byte cap cuts at a whole row under the cap and says so', async () => {
    const outcome = await sources.query({ source: 'bytes', sql: 'SELECT * FROM sales ORDER BY id', scope: web });
    expect(outcome).toMatchObject({ ok: true, cut: 'bytes' });
    if (!outcome.ok) return;
    expect(outcome.bytes).toBeLessThanOrEqual(4096);
    expect(outcome.bytes).toBeGreaterThan(4096 - 100);
    expect(outcome.csv.toString().endsWith('\r\n')).toBe(true);
    expect(outcome.csv.length).toBe(outcome.bytes);
  });

  it('CSV keeps the server text: commas, quotes, line breaks, NULL (empty) apart from the empty string ("")', async () => {
    const outcome = await sources.query({ source: 'sales', sql: 'SELECT * FROM notes ORDER BY id', scope: web });
    expect(outcome.ok && outcome.csv.toString()).toBe(
      'id,body\r\n1,plain\r\n2,"a, comma"\r\n3,"a ""quote"""\r\n4,"two\nlines"\r\n5,\r\n6,""\r\n',
    );
    expect(outcome.ok && outcome.columns).toEqual([
      { name: 'id', type: 'integer' },
      { name: 'body', type: 'text' },
    ]);
  });
});

describe('column types', () => {
  it('names a non-built-in type from the catalogue, and remembers at most its bound of them', async () => {
    await pg.psql(
      "CREATE TYPE mood AS ENUM ('ok'); CREATE TYPE pair AS (a int, b int); CREATE TYPE size AS ENUM ('s')",
    );
    const outcome = await sources.query({
      source: 'sales',
      sql: "SELECT 'ok'::mood AS m, ROW(1, 2)::pair AS p, 1::int AS i, 's'::size AS s",
      scope: web,
    });
    expect(outcome.ok && outcome.columns.map((c) => c.type)).toEqual(['mood', 'pair', 'integer', 'size']);
    expect(outcome.ok && outcome.csv.toString()).toBe('m,p,i,s\r\nok,"(1,2)",1,s\r\n');
    const oids = (
      await pg.psql(
        "SELECT string_agg(oid::text, ',' ORDER BY typname) FROM pg_type WHERE typname IN ('mood', 'pair', 'size')",
      )
    )
      .trim()
      .split(',')
      .map(Number);
    const pool = createPool(sourceOn(pg, pg.reader));
    const client = await pool.connect();
    try {
      const types = new TypeNames(2);
      const names = await types.names(client, oids);
      expect([...names.values()].sort()).toEqual(['mood', 'pair', 'size']);
      expect(types.size).toBe(2);
    } finally {
      client.release();
      await pool.end();
    }
  });
});

describe('describe and access', () => {
  it('describes the tables the role may read, with columns and estimates, bounded', async () => {
    await pg.psql(
      `CREATE SCHEMA many; ${Array.from({ length: DESCRIBE_LIMITS.maxTables + 5 }, (_, i) => `CREATE TABLE many.t${i} (a int);`).join(' ')}
       CREATE TABLE wide (${Array.from({ length: DESCRIBE_LIMITS.maxColumns + 3 }, (_, i) => `c${i} int`).join(', ')});
       CREATE TABLE hidden (secret text); REVOKE ALL ON hidden FROM PUBLIC;
       GRANT SELECT ON ALL TABLES IN SCHEMA many TO tl_reader; GRANT USAGE ON SCHEMA many TO tl_reader;`,
    );
    const schema = await sources.describe('sales', web);
    if (!('tables' in schema)) throw new Error(schema.message);
    expect(schema).toMatchObject({ name: 'sales', description: 'Sales by day', truncated: true });
    expect(schema.tables).toHaveLength(DESCRIBE_LIMITS.maxTables);
    const sales = schema.tables.find((t) => t.name === 'sales');
    expect(sales?.columns.map((c) => `${c.name} ${c.type}`)).toEqual([
      'id bigint',
      'region text',
      'day date',
      'amount numeric(12,2)',
    ]);
    expect(sales?.estimatedRows).toBe(20_000);
    expect(schema.tables.find((t) => t.name === 'wide')?.columns).toHaveLength(DESCRIBE_LIMITS.maxColumns);
    expect(schema.tables.some((t) => t.name.startsWith('many.'))).toBe(true);
  });

  it('an unknown source names itself and the sources this scope may use', async () => {
    const outcome = await sources.query({ source: 'nope', sql: 'SELECT 1', scope: web });
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'unknown_source',
      message: expect.stringMatching(/no source named "nope".*"sales"/),
    });
  });

  it("a source's allow list decides who and where, by the access lists' syntax", async () => {
    const anna = { platform: 'slack', user: 'U0ANNA', place: 'C0FINANCE' };
    expect(sources.list(anna).map((s) => s.name)).toContain('finance');
    expect((await sources.query({ source: 'finance', sql: 'SELECT 1', scope: anna })).ok).toBe(true);
    const bob = { ...anna, user: 'U0BOB' };
    expect(sources.list(bob).map((s) => s.name)).not.toContain('finance');
    expect(await sources.query({ source: 'finance', sql: 'SELECT 1', scope: bob })).toMatchObject({
      ok: false,
      kind: 'not_allowed',
    });
    const elsewhere = { ...anna, place: 'C0RANDOM' };
    expect(await sources.describe('finance', elsewhere)).toMatchObject({ kind: 'not_allowed' });
    // The web chat is the operator's own: the lists do not govern it.
    expect(sources.list(web).map((s) => s.name)).toContain('finance');
  });
});
