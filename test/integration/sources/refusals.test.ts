import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDataSources } from '../../../adapters/postgres/postgres-data-sources.js';
import type { SourceScope } from '../../../src/ports/data-sources.js';
import { sourceOn, startPostgres, type PrivatePostgres } from '../../support/postgres-server.js';

const scope: SourceScope = { platform: 'web', user: 'u1', place: 'web-thread' };

let pg: PrivatePostgres;
let sources: PostgresDataSources;
/** What every table holds, as the superuser sees it: must be the same after each refused statement. */
const snapshot = () =>
  pg.psql(
    `SELECT (SELECT count(*) || ':' || sum(amount) FROM sales) || '|' || (SELECT count(*) FROM regions) || '|' ||
            (SELECT string_agg(coalesce(body, '<null>'), ';' ORDER BY id) FROM notes) || '|' ||
            (SELECT last_value || ':' || is_called FROM invoice_numbers) || '|' ||
            (SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace) || '|' ||
            (SELECT count(*) FROM pg_largeobject_metadata)`,
  );
let before: string;

beforeAll(async () => {
  pg = await startPostgres();
  sources = new PostgresDataSources({
    sources: [sourceOn(pg, pg.reader, { name: 'reader' }), sourceOn(pg, pg.writer, { name: 'writer' })],
    secrets: [pg.reader.password, pg.writer.password],
  });
  before = await snapshot();
});
afterAll(async () => {
  await sources?.close();
  await pg?.stop();
});

/** Each write, and its refusal's words: refused by the READ ONLY transaction, the role, or the one-statement rule. */
const WRITES: Array<[string, string, RegExp]> = [
  ['INSERT', "INSERT INTO regions VALUES (9, 'mars')", /read-only and refused this: cannot execute INSERT/],
  ['UPDATE', 'UPDATE sales SET amount = 0', /cannot execute UPDATE in a read-only transaction/],
  ['DELETE', 'DELETE FROM sales', /cannot execute DELETE in a read-only transaction/],
  ['INSERT … RETURNING', "INSERT INTO regions VALUES (9, 'mars') RETURNING *", /cannot execute INSERT/],
  ['DDL: CREATE TABLE', 'CREATE TABLE evil (x int)', /cannot execute CREATE TABLE in a read-only transaction/],
  ['DDL: DROP TABLE', 'DROP TABLE notes', /cannot execute DROP TABLE in a read-only transaction/],
  ['TRUNCATE', 'TRUNCATE sales', /cannot execute TRUNCATE TABLE in a read-only transaction/],
  ['writable CTE', 'WITH d AS (DELETE FROM sales RETURNING *) SELECT count(*) FROM d', /read-only transaction/],
  ['COPY … TO PROGRAM', "COPY sales TO PROGRAM 'touch /tmp/threadlab-pwned'", /pg_execute_server_program/],
  ['COPY … FROM', "COPY regions FROM '/etc/hostname'", /refused this/],
  ['COMMIT; DELETE …', 'COMMIT; DELETE FROM sales', /one statement per query/],
  ['ROLLBACK; BEGIN; DELETE …', 'ROLLBACK; BEGIN READ WRITE; DELETE FROM sales', /one statement per query/],
  ['SET TRANSACTION READ WRITE; …', 'SET TRANSACTION READ WRITE; DELETE FROM sales', /one statement per query/],
  ['SET TRANSACTION READ WRITE', 'SET TRANSACTION READ WRITE', /read-write mode must be set before any query/],
  ['SET ROLE to a superuser', 'SET ROLE postgres', /refused this: permission denied to set role/],
  ['SET SESSION AUTHORIZATION', 'SET SESSION AUTHORIZATION postgres', /refused this: permission denied/],
  [
    'nextval()',
    "SELECT nextval('invoice_numbers')",
    /cannot execute nextval\(\) in a read-only transaction|permission denied for sequence/,
  ],
  ['lo_import', "SELECT lo_import('/etc/hostname')", /refused this/],
  [
    'pg_terminate_backend',
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'postgres'",
    /refused this: (must be a superuser|permission denied)/,
  ],
  ['DO block', 'DO $$ BEGIN DELETE FROM sales; END $$', /refused this|only queries that return rows/],
];

describe.each(['reader', 'writer'])('a write through the %s role', (source) => {
  it.each(WRITES)('%s is refused in plain words, and nothing changes', async (_, sql, words) => {
    const outcome = await sources.query({ source, sql, scope });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.kind).toBe('refused');
    expect(outcome.message).toMatch(words);
    expect(outcome.message).toContain(`"${source}"`);
    expect(await snapshot()).toBe(before);
  });
});

describe('what a read-write role could do and still cannot', () => {
  it('SET ROLE to a role it is in (the owner) runs nothing: a statement without rows is refused and rolled back', async () => {
    const outcome = await sources.query({ source: 'writer', sql: 'SET ROLE tl_owner', scope });
    expect(outcome).toMatchObject({
      ok: false,
      kind: 'refused',
      message: expect.stringMatching(/only queries that return rows/),
    });
    const whoAmI = await sources.query({
      source: 'writer',
      sql: 'SELECT current_user, current_setting($$transaction_read_only$$)',
      scope,
    });
    expect(whoAmI.ok && whoAmI.csv.toString()).toBe('current_user,current_setting\r\ntl_writer,on\r\n');
  });

  it('set_config cannot turn the session read-write for a later query (it is rolled back)', async () => {
    const set = await sources.query({
      source: 'writer',
      sql: "SELECT set_config('default_transaction_read_only', 'off', false), set_config('transaction_read_only', 'off', false)",
      scope,
    });
    expect(set.ok).toBe(false);
    const write = await sources.query({ source: 'writer', sql: 'DELETE FROM sales RETURNING id', scope });
    expect(write).toMatchObject({ ok: false, kind: 'refused' });
    expect(await snapshot()).toBe(before);
  });

  it('a function that writes though the transaction is READ ONLY (lo_create) leaves nothing: ROLLBACK ends every query', async () => {
    const outcome = await sources.query({ source: 'writer', sql: 'SELECT lo_create(0) IS NOT NULL AS made', scope });
    expect(outcome.ok && outcome.csv.toString()).toBe('made\r\nt\r\n');
    expect(await snapshot()).toBe(before);
  });

  it('the same reads work through both roles', async () => {
    for (const source of ['reader', 'writer']) {
      const outcome = await sources.query({ source, sql: 'SELECT count(*) AS n FROM sales', scope });
      expect(outcome.ok && outcome.csv.toString()).toBe('n\r\n20000\r\n');
    }
  });

  it('a superuser source is refused before any statement runs', async () => {
    await pg.psql("CREATE ROLE tl_super LOGIN SUPERUSER PASSWORD 'super-secret-pw'");
    const su = new PostgresDataSources({
      sources: [sourceOn(pg, { user: 'tl_super', password: 'super-secret-pw' }, { name: 'su' })],
      secrets: ['super-secret-pw'],
    });
    try {
      const outcome = await su.query({ source: 'su', sql: 'SELECT 1', scope });
      expect(outcome).toMatchObject({
        ok: false,
        kind: 'refused',
        message: expect.stringMatching(/superuser.*read-only role/),
      });
    } finally {
      await su.close();
    }
  });
});
