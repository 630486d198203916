import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SharpArtifactRenderer } from '../../../adapters/render/sharp-renderer.js';
import { benchSandbox } from '../../../cli/bench/sandbox-bench.js';
import { limitsForFrame } from '../../../cli/bench/durable-state-bench.js';
import { registeredRuntimes } from '../../../sandbox/runtime.js';
import { docker, logger, sandboxImage, testLimits } from './helpers.js';

/** The sandbox's run limit for the bench, in ms (THREADLAB_SANDBOX_TIMEOUT_MS; the tests' default is 10 s). */
const BENCH_RUN_LIMIT_MS = 120_000;

describe('benchSandbox', () => {
  it('measures the sandbox and durable threads under runc and runsc side by side, against the naive baselines, and cleans up', async () => {
    const hasRunsc = (await registeredRuntimes(docker)).includes('runsc');
    const dataDir = mkdtempSync(join(tmpdir(), 'threadlab-bench-'));
    const lines: string[] = [];
    try {
      const report = await benchSandbox({
        docker,
        image: await sandboxImage(),
        // The bench times runs; it does not test the run limit. The tests' 10 s limit ended a cold session's first
        // pandas-and-chart turn (e) on a machine at load ~12, so the bench runs with a limit no run here comes near.
        limits: testLimits({ poolSize: 1, stateSaveDelayMs: 300, timeoutMs: BENCH_RUN_LIMIT_MS }),
        dataDir,
        logger,
        renderer: new SharpArtifactRenderer(),
        iterations: 3,
        durableFrameMb: 8,
        out: (l) => lines.push(l),
      });
      expect(report.runtimes.map((r) => r.runtime)).toEqual(hasRunsc ? ['runc', 'runsc'] : ['runc']);
      if (!hasRunsc) expect(report.runscSkipped).toMatch(/not registered/);
      for (const r of report.runtimes) {
        expect(r.warmPrint.samples).toBe(3);
        expect(r.newSessionPandas.samples).toBe(3);
        expect(r.newSessionPandasDirect.samples).toBe(3);
        expect(r.containerStart.samples).toBe(3);
        // (d) The chart both ways, sampled in alternation; the end-to-end one also renders the PNG for chat.
        expect([r.chart.inside.samples, r.chart.endToEnd.samples]).toEqual([3, 3]);
        expect(r.chart.inside.p50Ms).toBeGreaterThan(0);
        expect(r.chart.ratio).toBe(Math.round((r.chart.endToEnd.p50Ms / r.chart.inside.p50Ms) * 100) / 100);
        // A pool hit skips the container start that (f) pays each time.
        expect(r.newSessionPandas.p50Ms).toBeLessThan(r.containerStart.p50Ms);
        // (e) A session that imported the data stack and drew a chart holds more than pandas alone (~38 MiB) on the
        // host, under gVisor too (its memory file counts, which usage minus cache left out).
        expect(r.idleMemory.sessions).toBe(3);
        // A pooled sandbox at rest waits without the data stack: it holds less than one primed while sessions
        // begin, and less than a session that used it.
        expect(r.poolMemory.containers).toBeGreaterThanOrEqual(1);
        expect(r.poolMemory.cgroupMb).toBeLessThan(r.primedPoolMemory.cgroupMb);
        expect(r.poolMemory.cgroupMb).toBeLessThan(r.idleMemory.cgroupMb);
        expect(r.idleMemory.cgroupMb).toBeGreaterThan(40);
        expect(r.idleSessionMemoryMb).toBe(r.idleMemory.cgroupMb);
        expect(Number.isFinite(r.idleMemory.hostDropMb)).toBe(true);
        // Once their kernels went lean (variables saved, a fresh kernel in the same container) the same sessions
        // give the data stack's memory back.
        expect(r.idleMemory.lean.cgroupMb).toBeLessThan(r.idleMemory.cgroupMb - 20);
        expect(r.targets.leanIdleMemoryAtMost70Mb).toBe(r.idleMemory.lean.cgroupMb <= 70);
        // (i) The image has R and JavaScript: each first run (its session starting) and later runs, outputs checked.
        expect(r.languages.map((l) => l.language)).toEqual(['r', 'javascript']);
        for (const l of r.languages) {
          expect(l.first.samples).toBe(3);
          expect(l.later.p50Ms).toBeGreaterThan(0);
          expect(l.later.p50Ms).toBeLessThan(l.first.p50Ms);
        }
        expectDurableFigures(r);
      }
      const runc = report.runtimes[0]!;
      expect(runc.newSessionPandas.p50Ms).toBeLessThan(report.naiveDockerRun.p50Ms);
      expect(runc.newSessionPandas.p50Ms).toBeLessThan(report.naiveDockerExec.p50Ms);
      expect(lines.join('\n')).toMatch(/runc p50 \/ p95 ms/);
      expect(lines.join('\n')).toMatch(/\(a\) warm session/);
      expect(lines.join('\n')).toMatch(/\(d\) end to end \/ inside, p50 \(x\) +\d+\.\d\d/);
      expect(lines.at(-1)).toMatch(/\(d\) <= 1\.15x (met|MISSED)/);
      expect(lines.join('\n')).toMatch(/\(e\) memory per idle pooled sandbox at rest, host view \(MiB\)/);
      expect(lines.join('\n')).toMatch(/\(e\) memory per idle session after a pandas turn \(MiB\)/);
      expect(lines.join('\n')).toMatch(
        /\(e\) memory per idle session after a pandas turn, once its kernel went lean \(MiB\)\s+\d+(\.\d+)?/,
      );
      expect(lines.at(-1)).toMatch(
        /\(e\) <= 70 MiB pooled (met|MISSED), after a pandas turn (met|MISSED), once its kernel went lean (met|MISSED)/,
      );
      expect(lines.join('\n')).toMatch(/\(g\) durable, 8 MB DataFrame: save/);
      expect(lines.join('\n')).toMatch(/\(h\) pandas cell, pause 0\.8 s \(save lands\): off/);
      expect(lines.join('\n')).toMatch(/durable threads under runc: p50 on\/off, print\(1\) \d+\.\d+x back to back/);
      expect(lines.join('\n')).toMatch(/\(i\) warm thread, first R run \(session starts\)/);
      expect(report.imageMb).toBeGreaterThan(500);
      expect(lines.at(-1)).toMatch(/^targets:/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    // Every container the bench started (baselines, pools, sessions, the durable-thread sandboxes) is gone.
    const leftovers = await docker.listContainers({
      all: true,
      filters: { label: [`dev.threadlab.pid=${process.pid}`] },
    });
    expect(leftovers.filter((c) => c.Labels['dev.threadlab.host'] === hostname())).toEqual([]);
  }, 900_000);

  it('raises the limits the DataFrame thread needs, and says which', () => {
    const { limits, raised } = limitsForFrame(testLimits({ memoryMb: 512, dataMb: 64 }), 100);
    expect(limits.memoryMb).toBe(320 + 4 * 96);
    expect(limits.dataMb).toBe(2 * 96 + 16);
    expect(raised).toEqual(['THREADLAB_SANDBOX_MEMORY_MB 512 -> 704', 'THREADLAB_SANDBOX_DATA_MB 64 -> 208']);
    expect(limitsForFrame(testLimits({ memoryMb: 2048, dataMb: 512 }), 100).raised).toEqual([]);
  });
});

/** Save and restore figures exist and are sane, and every restore brought the values back (not only took time). */
function expectDurableFigures(r: Awaited<ReturnType<typeof benchSandbox>>['runtimes'][number]): void {
  const { dataFrame, smallVariables, freshFirstRun, pandasImport, limits } = r.durableState;
  expect(limits.raised).toEqual([]);
  expect(dataFrame).toMatchObject({ megabytes: 8, rows: 1_000_000, variables: 3, restoredVariables: 3 });
  expect(dataFrame.savedBytes).toBeGreaterThan(8_000_000);
  // 1,000,000 rows, the sum's bits, the first value as the last save left it (sample 2), the module aliases.
  expect(dataFrame.check.saved).toMatch(/^1000000 0x1\.[0-9a-f]+p\+\d+ 2\.0 numpy pandas\n$/);
  expect(dataFrame.check.restored).toBe(dataFrame.check.saved);
  expect(smallVariables).toMatchObject({ variables: 1000, restoredVariables: 1000 });
  expect(smallVariables.check).toEqual({ saved: '1000 2 s1 [2, 3] 999\n', restored: '1000 2 s1 [2, 3] 999\n' });
  expect(smallVariables.savedBytes).toBeGreaterThan(1000);
  for (const s of [dataFrame.save, smallVariables.save, freshFirstRun, pandasImport]) {
    expect(s.p50Ms).toBeGreaterThan(0);
    expect(s.p95Ms).toBeGreaterThanOrEqual(s.p50Ms);
  }
  expect(dataFrame.save.samples).toBe(3);
  // Pickling is part of each save, sample by sample, so its median cannot be above the save's.
  expect(dataFrame.pickleInKernel.p50Ms).toBeGreaterThan(0);
  expect(dataFrame.pickleInKernel.p50Ms).toBeLessThanOrEqual(dataFrame.save.p50Ms);
  expect(freshFirstRun.samples).toBe(6);
  // 8 MB go into the container and are unpickled: that takes time over a run without; 1,000 small ones may be lost in noise.
  expect(dataFrame.restoreExtra.p50Ms).toBeGreaterThan(0);
  expect(smallVariables.restoreExtra.samples).toBe(3);
  expect(Number.isFinite(smallVariables.restoreExtra.p50Ms)).toBe(true);
  const runs = r.durableRuns;
  expect(runs).toMatchObject({ saveDelayMs: 300, pauseMs: 800, saved: { on: true, off: false } });
  for (const c of [runs.print, runs.pandasCell]) {
    for (const s of [c.backToBack.on, c.backToBack.off, c.paused.on, c.paused.off]) {
      expect(s.samples).toBe(3);
      expect(s.p50Ms).toBeGreaterThan(0);
    }
  }
}
