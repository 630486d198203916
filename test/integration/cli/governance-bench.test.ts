import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from './cli-process.js';

// `threadlab bench governance` as shipped: every row is measured and printed (no timing thresholds: a shared
// machine's timings say nothing about correctness; the bench itself fails when a press or a budget misbehaves).

const dataDir = mkdtempSync(join(tmpdir(), 'threadlab-cli-governance-bench-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const FIGURE = String.raw`\s+(-?\d+(?:\.\d+)?)`;

describe('threadlab bench governance', () => {
  it('prints what the access check, audit, budgets and approval add, side by side with the work without them', async () => {
    const run = await runCli(['bench', 'governance', '--iterations', '10'], { env: cliEnv(dataDir), cwd: dataDir });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('threadlab governance bench: 10 samples per row');
    const rows = [
      /^\(a\) access check, 1,000 places and 1,000 people listed/,
      /^\(b\) print\(1\) in a warm (runc|runsc) sandbox, audited \(a line to a file\)/,
      /^\(b\) the audit line alone \(file append\)/,
      /^\(c\) budgets per turn: admit, two charges, check \(memory\)/,
      /^\(c\) budgets per turn: admit, two charges, check \(Redis\)/,
      /^\(d\) approval: a press reaching the waiting turn \(process\)/,
      /^\(d\) approval: a press reaching the waiting turn \(Redis\)/,
    ];
    for (const row of rows) {
      const line = lines.find((l) => row.test(l));
      expect(line, `${row} in\n${run.stdout}`).toBeDefined();
      const [without, withFeature, added, p95] = new RegExp(`${FIGURE}${FIGURE}${FIGURE}${FIGURE}$`)
        .exec(line!)!
        .slice(1, 5)
        .map(Number);
      expect(withFeature).toBeGreaterThan(0);
      expect(p95).toBeGreaterThanOrEqual(withFeature!);
      expect(added).toBeCloseTo(withFeature! - without!, 1);
    }
  }, 300_000);
});
