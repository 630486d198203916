import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchSandbox } from '../../../sandbox/bench.js';
import { docker, logger, sandboxImage, testLimits } from './helpers.js';

describe('benchSandbox', () => {
  it('measures the sandbox against the naive baselines and cleans up', async () => {
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
      expect(report.warmPrint.samples).toBe(3);
      expect(report.newSessionPandas.samples).toBe(3);
      expect(report.newSessionPandas.p50Ms).toBeLessThan(report.naiveDockerRun.p50Ms);
      expect(report.newSessionPandas.p50Ms).toBeLessThan(report.naiveDockerExec.p50Ms);
      expect(report.idleSessionMemoryMb).toBeGreaterThan(10);
      expect(lines.join('\n')).toMatch(/\(a\) warm session.*p50.*p95/);
      expect(lines.at(-1)).toMatch(/^targets:/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    const leftovers = await docker.listContainers({ all: true, filters: { label: ['dev.threadlab.session=bench'] } });
    expect(leftovers.filter((c) => c.Labels['dev.threadlab.pid'] === String(process.pid))).toEqual([]);
  });
});
