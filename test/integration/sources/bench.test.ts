import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGGREGATE_SQL, benchSources, THREAD_GOAL_MS } from '../../../cli/bench/sources-bench.js';
import type { Sandbox } from '../../../src/ports/sandbox.js';
import { logger, makeSandbox, type TestSandbox } from '../sandbox/helpers.js';

let box: TestSandbox;
beforeAll(async () => {
  box = await makeSandbox('bench-sources', { timeoutMs: 30_000 });
}, 120_000);
afterAll(async () => {
  await box?.close();
});

/** The real sandbox, with what the bench asked of it written down: the files it saw and the files it put. */
function recording(sandbox: Sandbox): { sandbox: Sandbox; listed: number[]; put: string[] } {
  const listed: number[] = [];
  const put: string[] = [];
  const seen = Object.create(sandbox) as Sandbox;
  seen.listFiles = async (key) => {
    const files = await sandbox.listFiles(key);
    listed.push(files.length);
    return files;
  };
  seen.putFile = async (key, name, data) => {
    put.push(name);
    return sandbox.putFile(key, name, data);
  };
  return { sandbox: seen, listed, put };
}

describe('threadlab bench sources', () => {
  it('runs the edge beside psql, then the rows into a DataFrame in a real sandbox, and prints the figures', async () => {
    const lines: string[] = [];
    const seen = recording(box.sandbox);
    const report = await benchSources({
      samples: 2,
      salesRows: 30_000,
      out: (line) => lines.push(line),
      thread: { sandbox: seen.sandbox, loadTimeoutMs: 30_000, logger },
    });
    expect(AGGREGATE_SQL).toMatch(/GROUP BY region/);
    expect(report.aggregate.ratio).toBeGreaterThan(0);
    expect(report.aggregate.edge.samples).toBe(2);
    expect(report.aggregate.psql.samples).toBe(2);
    // 30,000 rows exist: the 100,000-row fetch returns them all, as CSV with a header.
    expect(report.fetch.rows).toBe(30_000);
    // Each sample loaded all 30,000 rows (the bench checks the loading run's preview, and throws otherwise).
    expect(report.thread).toMatchObject({ queryAndLoad: { samples: 2 }, load: { samples: 2 }, goalMs: THREAD_GOAL_MS });
    expect(report.thread!.queryAndLoad.p50Ms).toBeGreaterThan(0);
    // One warm-up, two query-and-load and two load-alone samples put a CSV each; the thread never held two.
    expect(seen.put).toHaveLength(5);
    expect(seen.put.every((name) => /^query_1_bench\.csv$/.test(name))).toBe(true);
    expect(seen.listed).toHaveLength(5);
    expect(Math.max(...seen.listed)).toBe(0);
    const text = lines.join('\n');
    expect(text).toMatch(/ratio edge \/ psql: [\d.]+× \(goal ≤ 1\.2×\)/);
    expect(text).toMatch(/30000 rows, \d+ bytes/);
    expect(text).toMatch(/30000 rows into a DataFrame in the thread \(a Docker sandbox\), p50 \/ p95 of 2:/);
    expect(text).toMatch(/query \+ CSV into \/mnt\/data \+ load +[\d.]+ \/ [\d.]+ ms \(goal ≤ 1000 ms: (met|missed)\)/);
    expect(text).toMatch(/load alone \(rows already fetched\) +[\d.]+ \/ [\d.]+ ms/);
  }, 240_000);
});
