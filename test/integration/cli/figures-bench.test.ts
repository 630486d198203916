import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from './cli-process.js';

// `threadlab bench figures` as shipped: both rows are measured and printed (no timing thresholds: a shared
// machine's timings say nothing about correctness; the figures and their ratio are checked for shape).

const dataDir = mkdtempSync(join(tmpdir(), 'threadlab-cli-figures-bench-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('threadlab bench figures', () => {
  it('prints the time to check a 5 KB answer against 100 KB and 2 MB of output, and their ratio', async () => {
    const run = await runCli(['bench', 'figures', '--iterations', '3'], { env: cliEnv(dataDir), cwd: dataDir });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('threadlab figures bench: 3 checks per row, p50 and p95 in ms');
    expect(lines[1]).toMatch(/^load average \d+\.\d on \d+ cores$/);
    for (const size of ['100 KB', '2\\.0 MB']) {
      const row = new RegExp(
        `^  ${size} +5\\.\\d KB +(\\d+) +(\\d+) +(\\d+\\.\\d\\d) +(\\d+\\.\\d\\d) +(\\d+\\.\\d\\d)$`,
        'm',
      ).exec(run.stdout);
      expect(row, `${size} row in\n${run.stdout}`).not.toBeNull();
      const [figures, found, p50, p95, cpu] = row!.slice(1).map(Number) as [number, number, number, number, number];
      expect(figures).toBeGreaterThan(50);
      // The sample answer invents one mean in eight: some are not found, most are.
      expect(found).toBeGreaterThan(figures / 2);
      expect(found).toBeLessThan(figures);
      expect(p95).toBeGreaterThanOrEqual(p50);
      expect(p50).toBeGreaterThan(0);
      expect(cpu).toBeGreaterThan(0);
    }
    expect(run.stdout).toMatch(
      /^100 KB output: p95 \d+\.\d\d ms against a 50 ms target \((met|NOT met)\); CPU p50 \d+\.\d\d ms$/m,
    );
    expect(run.stdout).toMatch(/^2\.0 MB \/ 100 KB: 20\.\d× the output took \d+\.\d× the time \(p50\)$/m);
  }, 300_000);
});
