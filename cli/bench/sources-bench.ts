import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PostgresDataSources } from '../../adapters/postgres/postgres-data-sources.js';
import type { SourceSettings } from '../../src/config/sources.js';
import type { QueryOutcome, SourceScope } from '../../src/ports/data-sources.js';
import { startPrivatePostgres, type PrivatePostgres } from '../private-postgres.js';
import { round, stats, time, type BenchStats } from './bench-stats.js';
import { benchIntoThread, type SourcesBenchThread } from './sources-thread-bench.js';

const run = promisify(execFile);

export const AGGREGATE_SQL = 'SELECT region, sum(amount) AS revenue FROM sales GROUP BY region ORDER BY region';
export const FETCH_SQL = 'SELECT * FROM sales ORDER BY id LIMIT 100000';
/** The issue's goal for 100,000 rows into a DataFrame in the thread, query included, in ms. */
export const THREAD_GOAL_MS = 1_000;

export interface BenchSourcesOptions {
  /** Samples per row. @defaultValue 10 */
  samples?: number;
  /** Rows of the generated `sales` table. @defaultValue 1000000 */
  salesRows?: number;
  out: (line: string) => void;
  /**
   * A thread's sandbox: 100,000 rows go into a DataFrame in it through the query tool's own path, timed whole and the
   * load alone (sources-thread-bench.ts); without it only the fetch into CSV is measured.
   */
  thread?: SourcesBenchThread;
}

export interface BenchSourcesReport {
  aggregate: { edge: BenchStats; edgeCold: BenchStats; psql: BenchStats; ratio: number };
  fetch: { edge: BenchStats; psqlCopy: BenchStats; rows: number; bytes: number };
  /** 100,000 rows into a DataFrame in a thread: query and load, and the load alone (when a thread was given). */
  thread?: { queryAndLoad: BenchStats; load: BenchStats; goalMs: number };
}

const scope: SourceScope = { platform: 'cli', user: 'bench', place: 'bench' };

function settingsOn(pg: PrivatePostgres): SourceSettings {
  return {
    name: 'bench',
    kind: 'postgres',
    allow: {},
    maxConnections: 2,
    limits: { statementTimeoutMs: 120_000, maxRows: 100_000, maxBytes: 100 * 1024 * 1024 },
    connection: { connectionString: pg.urlFor(pg.reader), password: pg.reader.password },
  };
}

/** `psql -c` as an analyst would run it: a new process, connection and login each time, over TCP with the password. */
function psql(pg: PrivatePostgres, sql: string): Promise<{ stdout: string }> {
  return run(
    join(pg.binDir, 'psql'),
    [
      '-X',
      '-q',
      '-A',
      '-t',
      '-h',
      '127.0.0.1',
      '-p',
      String(pg.port),
      '-U',
      pg.reader.user,
      '-d',
      pg.database,
      '-c',
      sql,
    ],
    { env: { ...process.env, PGPASSWORD: pg.reader.password }, maxBuffer: 256 * 1024 * 1024 },
  );
}

const ok = (o: QueryOutcome): Extract<QueryOutcome, { ok: true }> => {
  if (!o.ok) throw new Error(`bench query failed: ${o.kind}: ${o.message}`);
  return o;
};

/**
 * Threadlab's Postgres edge beside psql on the same private server, in one run: a 1,000,000-row aggregate (edge on a
 * warm pool, edge opening its pool each time, `psql -c`), then 100,000 rows into CSV (edge; psql's COPY … TO STDOUT
 * as the floor), and, given a sandbox, the same rows into a DataFrame in a thread (query and load; load alone).
 */
export async function benchSources(o: BenchSourcesOptions): Promise<BenchSourcesReport> {
  const samples = o.samples ?? 10;
  const started = performance.now();
  const pg = await startPrivatePostgres({ salesRows: o.salesRows ?? 1_000_000 });
  o.out(
    `private PostgreSQL ready with ${o.salesRows ?? 1_000_000} sales rows in ${Math.round(performance.now() - started)} ms`,
  );
  const sources = new PostgresDataSources({ sources: [settingsOn(pg)], secrets: [pg.reader.password] });
  try {
    const query = async (sql: string) => ok(await sources.query({ source: 'bench', sql, scope }));
    // Warm both sides once (the pool's first connection, the server's caches).
    const expected = (await query(AGGREGATE_SQL)).rows;
    await psql(pg, AGGREGATE_SQL);
    const edge = stats(await time(samples, async () => void (await query(AGGREGATE_SQL))));
    const edgeCold = stats(
      await time(samples, async () => {
        const cold = new PostgresDataSources({ sources: [settingsOn(pg)], secrets: [] });
        ok(await cold.query({ source: 'bench', sql: AGGREGATE_SQL, scope }));
        await cold.close();
      }),
    );
    const viaPsql = stats(
      await time(samples, async () => {
        const lines = (await psql(pg, AGGREGATE_SQL)).stdout.trim().split('\n');
        if (lines.length !== expected) throw new Error(`psql returned ${lines.length} rows, the edge ${expected}`);
      }),
    );
    const ratio = round(edge.p50Ms / viaPsql.p50Ms);
    o.out(`aggregate over ${o.salesRows ?? 1_000_000} rows (${expected} groups), p50 / p95 of ${samples}:`);
    o.out(`  threadlab edge (warm pool)     ${edge.p50Ms} / ${edge.p95Ms} ms`);
    o.out(`  threadlab edge (new pool)      ${edgeCold.p50Ms} / ${edgeCold.p95Ms} ms`);
    o.out(`  psql -c                        ${viaPsql.p50Ms} / ${viaPsql.p95Ms} ms`);
    o.out(`  ratio edge / psql: ${ratio}× (goal ≤ 1.2×); new pool / psql: ${round(edgeCold.p50Ms / viaPsql.p50Ms)}×`);

    let fetched = await query(FETCH_SQL);
    const fetchEdge = stats(await time(samples, async () => void (fetched = await query(FETCH_SQL))));
    const copySql = `COPY (${FETCH_SQL}) TO STDOUT WITH (FORMAT csv, HEADER)`;
    const psqlCopy = stats(await time(samples, async () => void (await psql(pg, copySql))));
    o.out(`100,000 rows into CSV, p50 / p95 of ${samples}: ${fetched.rows} rows, ${fetched.bytes} bytes`);
    o.out(`  threadlab edge (stream → CSV)  ${fetchEdge.p50Ms} / ${fetchEdge.p95Ms} ms`);
    o.out(`  psql COPY … TO STDOUT (floor)  ${psqlCopy.p50Ms} / ${psqlCopy.p95Ms} ms`);
    let thread: BenchSourcesReport['thread'];
    if (o.thread) {
      const measured = await benchIntoThread({
        thread: o.thread,
        sources,
        source: 'bench',
        sql: FETCH_SQL,
        scope,
        samples,
        fetched,
      });
      thread = { ...measured, goalMs: THREAD_GOAL_MS };
      const { queryAndLoad: whole, load } = measured;
      const verdict = whole.p50Ms <= THREAD_GOAL_MS ? 'met' : 'missed';
      o.out(
        `${fetched.rows} rows into a DataFrame in the thread (a Docker sandbox${o.thread.runtime ? `, ${o.thread.runtime}` : ''}), p50 / p95 of ${samples}:`,
      );
      o.out(
        `  query + CSV into /mnt/data + load ${whole.p50Ms} / ${whole.p95Ms} ms (goal ≤ ${THREAD_GOAL_MS} ms: ${verdict})`,
      );
      o.out(`  load alone (rows already fetched)  ${load.p50Ms} / ${load.p95Ms} ms`);
    } else {
      o.out('  into a DataFrame in the thread: not measured (no sandbox given)');
    }
    return {
      aggregate: { edge, edgeCold, psql: viaPsql, ratio },
      fetch: { edge: fetchEdge, psqlCopy, rows: fetched.rows, bytes: fetched.bytes },
      ...(thread ? { thread } : {}),
    };
  } finally {
    await sources.close();
    await pg.stop();
  }
}
