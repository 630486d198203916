import { describe, expect, it } from 'vitest';
import { AGGREGATE_SQL, benchSources } from '../../../cli/bench/sources-bench.js';

describe('threadlab bench sources', () => {
  it('runs the edge and psql side by side on a private server and prints the figures and the ratio', async () => {
    const lines: string[] = [];
    const loaded: number[] = [];
    const report = await benchSources({
      samples: 2,
      salesRows: 30_000,
      out: (line) => lines.push(line),
      loadIntoThread: async (csv) => void loaded.push(csv.length),
    });
    expect(AGGREGATE_SQL).toMatch(/GROUP BY region/);
    expect(report.aggregate.ratio).toBeGreaterThan(0);
    expect(report.aggregate.edge.samples).toBe(2);
    expect(report.aggregate.psql.samples).toBe(2);
    // 30,000 rows exist: the 100,000-row fetch returns them all, as CSV with a header.
    expect(report.fetch.rows).toBe(30_000);
    expect(loaded).toEqual([report.fetch.bytes, report.fetch.bytes]);
    const text = lines.join('\n');
    expect(text).toMatch(/ratio edge \/ psql: [\d.]+× \(goal ≤ 1\.2×\)/);
    expect(text).toMatch(/30000 rows, \d+ bytes/);
    expect(text).toMatch(/into a DataFrame in the thread +[\d.]+ \/ [\d.]+ ms/);
  });
});
