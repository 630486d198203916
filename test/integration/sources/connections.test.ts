import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDataSources } from '../../../adapters/postgres/postgres-data-sources.js';
import { probeSource } from '../../../adapters/postgres/role-check.js';
import { checkSources } from '../../../cli/doctor-sources.js';
import { loadConfig } from '../../../src/config/index.js';
import { createLogger } from '../../../src/logger.js';
import type { SourceScope } from '../../../src/ports/data-sources.js';
import { freePort } from '../../support/redis-server.js';
import { sourceOn, startPostgres, type PrivatePostgres } from '../../support/postgres-server.js';

const web: SourceScope = { platform: 'web', user: 'u1', place: 'web-thread' };
let pg: PrivatePostgres;
let dir: string;

beforeAll(async () => {
  pg = await startPostgres();
  dir = mkdtempSync(join(tmpdir(), 'threadlab-sources-conn-'));
});
afterAll(async () => {
  await pg?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Every line the edge logs, at every level, unredacted (the logger is given no secrets: the edge must not need it). */
function capture(): { lines: string[]; logger: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'trace', destination }) };
}

describe('connections', () => {
  it('an unreachable source (a closed port) names the source and the setting, never the URL', async () => {
    const port = await freePort();
    const settings = { ...sourceOn(pg, pg.reader, { name: 'gone' }) };
    settings.connection = {
      ...settings.connection,
      connectionString: `postgres://tl_reader@127.0.0.1:${port}/postgres`,
    };
    const sources = new PostgresDataSources({ sources: [settings], secrets: [pg.reader.password] });
    try {
      const outcome = await sources.query({ source: 'gone', sql: 'SELECT 1', scope: web });
      expect(outcome).toMatchObject({ ok: false, kind: 'unreachable' });
      if (outcome.ok) return;
      expect(outcome.message).toMatch(/Source "gone" is unreachable: nothing answered.*THREADLAB_SOURCES_FILE/);
      expect(outcome.message).not.toContain(String(port));
      expect(outcome.message).not.toContain('127.0.0.1');
      expect(await sources.describe('gone', web)).toMatchObject({ kind: 'unreachable' });
    } finally {
      await sources.close();
    }
  });

  it('a wrong password is named as the login, without the password', async () => {
    const sources = new PostgresDataSources({
      sources: [sourceOn(pg, pg.reader, { name: 'sales', password: 'wrong-password-123' })],
      secrets: ['wrong-password-123'],
    });
    try {
      const outcome = await sources.query({ source: 'sales', sql: 'SELECT 1', scope: web });
      expect(outcome).toMatchObject({
        ok: false,
        kind: 'unreachable',
        message: expect.stringMatching(/refused the login: check the password \(passwordEnv or passwordFile\)/),
      });
      expect(JSON.stringify(outcome)).not.toContain('wrong-password-123');
    } finally {
      await sources.close();
    }
  });
});

describe('nothing leaks', () => {
  it('no result, failure or log line carries the password or the URL (from a real sources file and passwordEnv)', async () => {
    const path = join(dir, 'sources.json');
    const url = pg.urlFor(pg.reader);
    writeFileSync(
      path,
      JSON.stringify({
        sources: [
          { name: 'sales', kind: 'postgres', url, passwordEnv: 'SALES_PW', statementTimeoutMs: 500, maxRows: 50 },
        ],
      }),
    );
    const config = loadConfig({ THREADLAB_SOURCES_FILE: path, SALES_PW: pg.reader.password });
    const { lines, logger } = capture();
    const sources = new PostgresDataSources({ sources: config.sources, secrets: config.secrets, logger });
    const outputs: string[] = [];
    const record = (o: unknown) =>
      outputs.push(
        typeof o === 'string' ? o : JSON.stringify(o, (_, v: unknown) => (Buffer.isBuffer(v) ? v.toString() : v)),
      );
    try {
      record(sources.list(web));
      record(await sources.describe('sales', web));
      for (const sql of [
        'SELECT * FROM sales',
        'SELECT current_user, inet_server_port() AS port, current_database()',
        'SELECT pg_sleep(5)',
        'DELETE FROM sales',
        'SELEC broken',
        "SELECT 'x' || current_setting('does.not.exist')",
        'SELECT 1; SELECT 2',
      ])
        record(await sources.query({ source: 'sales', sql, scope: web }));
      record(await sources.query({ source: 'nope', sql: 'SELECT 1', scope: web }));
      // The doctor's lines too.
      record(await checkSources(config.sources, (s) => probeSource(s, config.secrets)));
    } finally {
      await sources.close();
    }
    expect(outputs.length).toBe(11);
    expect(lines.length).toBeGreaterThan(5);
    const everything = [...outputs, ...lines].join('\n');
    expect(everything).toContain('tl_reader'); // the role's name may be shown (current_user); the credentials never
    expect(everything).not.toContain(pg.reader.password);
    expect(everything).not.toContain(url);
    expect(everything).not.toContain(`:${pg.port}/`);
    for (const secret of config.secrets) expect(everything).not.toContain(secret);
  });
});

describe('threadlab doctor on a source', () => {
  it('a read-only role is ok, with the server version', async () => {
    const [check] = await checkSources([sourceOn(pg, pg.reader, { name: 'sales' })], (s) => probeSource(s, []));
    expect(check).toMatchObject({
      name: 'Source sales',
      status: 'ok',
      detail: expect.stringMatching(/^reachable \(PostgreSQL 1\d\.\d+.*, role tl_reader\); the role can only read$/),
    });
  });

  it('a role that could write is a warning naming how, and says queries still only read', async () => {
    const [check] = await checkSources([sourceOn(pg, pg.writer, { name: 'rw' })], (s) => probeSource(s, []));
    expect(check?.status).toBe('warn');
    expect(check?.detail).toMatch(/may write table (public\.)?notes/);
    expect(check?.detail).toMatch(/may create objects in schema public|may create schemas or temporary tables/);
    expect(check?.detail).toMatch(/; and \d+ more$/);
    expect(check?.fix).toBe(
      'still only read: every query runs in a READ ONLY transaction, but create a read-only role: see docs/data-sources.md',
    );
  });

  it('a superuser fails the check; an unreachable source fails naming it', async () => {
    await pg.psql("CREATE ROLE tl_root LOGIN SUPERUSER PASSWORD 'root-pw-12345'");
    const port = await freePort();
    const gone = sourceOn(pg, pg.reader, { name: 'gone' });
    gone.connection = { connectionString: `postgres://tl_reader@127.0.0.1:${port}/postgres` };
    const checks = await checkSources(
      [sourceOn(pg, { user: 'tl_root', password: 'root-pw-12345' }, { name: 'root' }), gone],
      (s) => probeSource(s, []),
    );
    expect(checks[0]).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/is a superuser: Threadlab will not query it/),
    });
    expect(checks[1]).toMatchObject({ status: 'fail', detail: expect.stringMatching(/Source "gone" is unreachable/) });
  });
});
