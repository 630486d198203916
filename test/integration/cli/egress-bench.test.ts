import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { registeredRuntimes } from '../../../sandbox/runtime.js';
import { docker } from '../sandbox/helpers.js';
import { cliEnv, runCli } from './cli-process.js';

// `threadlab bench egress` as shipped: the figures exist and every request succeeded. No timing thresholds (a
// shared machine's timings say nothing about correctness); the bench itself fails when a request does.

const dataDir = mkdtempSync(join(tmpdir(), 'threadlab-cli-egress-bench-'));

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

// `added` is egress minus direct: on a busy machine the path through the gateway may come out faster.
const NUMBER = String.raw`\s+(-?\d+\.\d\d)`;
const figures = (line: string | undefined) =>
  new RegExp(`${NUMBER}${NUMBER}${NUMBER}`)
    .exec(line ?? '')
    ?.slice(1, 4)
    .map(Number);

describe('threadlab bench egress', () => {
  it('prints the gateway overhead and the whole path from a sandbox, per runtime, side by side', async () => {
    const hasRunsc = (await registeredRuntimes(docker)).includes('runsc');
    const run = await runCli(['bench', 'egress', '--iterations', '10'], { env: cliEnv(dataDir), cwd: dataDir });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('threadlab egress bench: 10 small GETs per side, each on a new connection, loopback server');
    const rows = [
      /^\(a\) gateway alone, absolute-form GET /,
      /^\(a\) gateway alone, CONNECT \+ GET /,
      /^\(b\) from a sandbox \(runc\), urllib GET, relay \+ gateway .* 10\/10 ok$/,
      ...(hasRunsc ? [/^\(b\) from a sandbox \(runsc\), urllib GET, relay \+ gateway .* 10\/10 ok$/] : []),
    ];
    for (const row of rows) {
      const line = lines.find((l) => row.test(l));
      expect(line, `${row} in\n${run.stdout}`).toBeDefined();
      const [direct, egress, added] = figures(line)!;
      expect(direct).toBeGreaterThan(0);
      expect(egress).toBeGreaterThan(0);
      expect(added).toBeCloseTo(egress! - direct!, 1);
    }
    if (!hasRunsc) expect(run.stdout).toMatch(/^runsc: skipped, runsc is not registered/m);
    expect(run.stdout).toContain('the sandbox has no direct path');
  }, 600_000);
});
