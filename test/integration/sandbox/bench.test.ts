import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchSandbox } from '../../../src/cli/bench/sandbox-bench.js';
import { registeredRuntimes } from '../../../sandbox/runtime.js';
import { docker, logger, sandboxImage, testLimits } from './helpers.js';

describe('benchSandbox', () => {
  it('measures the sandbox under runc and runsc side by side, against the naive baselines, and cleans up', async () => {
    const hasRunsc = (await registeredRuntimes(docker)).includes('runsc');
    const dataDir = mkdtempSync(join(tmpdir(), 'threadlab-bench-'));
    const lines: string[] = [];
    try {
      const report = await benchSandbox({
        docker,
        image: await sandboxImage(),
        limits: testLimits({ poolSize: 1 }),
        dataDir,
        logger,
        iterations: 3,
        out: (l) => lines.push(l),
      });
      expect(report.runtimes.map((r) => r.runtime)).toEqual(hasRunsc ? ['runc', 'runsc'] : ['runc']);
      if (!hasRunsc) expect(report.runscSkipped).toMatch(/not registered/);
      for (const r of report.runtimes) {
        expect(r.warmPrint.samples).toBe(3);
        expect(r.newSessionPandas.samples).toBe(3);
        expect(r.containerStart.samples).toBe(3);
        // A pool hit skips the container start that (f) pays each time.
        expect(r.newSessionPandas.p50Ms).toBeLessThan(r.containerStart.p50Ms);
        expect(r.idleSessionMemoryMb).toBeGreaterThan(10);
      }
      const runc = report.runtimes[0]!;
      expect(runc.newSessionPandas.p50Ms).toBeLessThan(report.naiveDockerRun.p50Ms);
      expect(runc.newSessionPandas.p50Ms).toBeLessThan(report.naiveDockerExec.p50Ms);
      expect(lines.join('\n')).toMatch(/runc p50 \/ p95 ms/);
      expect(lines.join('\n')).toMatch(/\(a\) warm session/);
      expect(lines.at(-1)).toMatch(/^targets:/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    const leftovers = await docker.listContainers({ all: true, filters: { label: ['dev.threadlab.session=bench'] } });
    expect(leftovers.filter((c) => c.Labels['dev.threadlab.pid'] === String(process.pid))).toEqual([]);
  });
});
