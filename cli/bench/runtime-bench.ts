import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import type { Logger } from '../../src/logger.js';
import type { ArtifactRenderer } from '../../src/ports/artifact-renderer.js';
import { DockerSandbox, type GvisorPlatform, type SandboxLimits, type SandboxRuntime } from '../../app/sandbox-kit.js';
import { stats, time } from './bench-stats.js';
import { benchChartLatency } from './chart-latency.js';
import { PANDAS } from './docker-baselines.js';
import { benchLanguages } from './language-bench.js';
import { columnLabel } from './platform-columns.js';
import { measureIdleMemory, measurePoolMemory } from './sandbox-memory.js';
import type { RuntimeBench } from './sandbox-report.js';

/** What the measurements under one runtime start their sandboxes with. */
export interface RuntimeBenchOptions {
  docker: Docker;
  image: string;
  limits: SandboxLimits;
  dataDir: string;
  logger: Logger;
  /** Renders a chart's PNG as a reply posts it (the configured renderer). */
  renderer: ArtifactRenderer;
  /** Longest side of posted images (THREADLAB_REPLY_MAX_IMAGE_PX). @defaultValue 2048 */
  maxImageDimensionPx?: number;
}

/** The sandbox's own measurements under one runtime, on a sandbox of its own (and one without a pool). */
export async function benchRuntime(
  options: RuntimeBenchOptions,
  column: { runtime: SandboxRuntime; platform?: GvisorPlatform },
  iterations: number,
  slow: number,
): Promise<Omit<RuntimeBench, 'durableState' | 'durableRuns'>> {
  const { docker, image } = options;
  const { runtime, platform } = column;
  const instanceId = `bench-${columnLabel(column)}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const make = (poolSize: number, id: string) =>
    new DockerSandbox({
      docker,
      image,
      limits: { ...options.limits, poolSize, poolMax: poolSize },
      dataDir: options.dataDir,
      logger: options.logger,
      instanceId: id,
      runtime,
      ...(platform ? { platform } : {}),
    });
  const sandbox = make(Math.max(1, options.limits.poolSize), instanceId);
  const cold = make(0, `${instanceId}-cold`);
  try {
    await sandbox.start();
    // The pool as it waits at rest (no session began yet): its containers hold no data stack.
    await sandbox.pool.whenFull();
    const poolMemory = await measurePoolMemory(docker, instanceId);
    await sandbox.run('bench-warm', { language: 'python', code: 'print(0)' });
    const warmPrint = stats(
      await time(iterations, () =>
        sandbox.run('bench-warm', { language: 'python', code: 'print(1)' }).then(() => undefined),
      ),
    );
    const chart = await benchChartLatency(sandbox, {
      key: 'bench-warm',
      renderer: options.renderer,
      maxImageDimensionPx: options.maxImageDimensionPx ?? 2048,
      iterations,
    });
    const languages = await benchLanguages(sandbox, { iterations, slow });
    const firstPandasRun = (key: string) => async () => {
      const result = await sandbox.run(key, { language: 'python', code: PANDAS });
      if (result.status !== 'ok') throw new Error(`bench run failed: ${result.error?.value ?? result.status}`);
    };
    // A model turn prepares the thread's sandbox while the model writes the code (the interpreter's prepare),
    // so the run that follows finds the data stack loaded; code sent as is pays for the import itself.
    const newSessionPandas = stats(
      await time(
        slow,
        (i) => firstPandasRun(`bench-new-${i}`)(),
        async (i) => {
          await sandbox.pool.whenFull();
          await sandbox.prepare(`bench-new-${i}`);
        },
      ),
    );
    const newSessionPandasDirect = stats(
      await time(
        slow,
        (i) => firstPandasRun(`bench-direct-${i}`)(),
        () => sandbox.pool.whenFull(),
      ),
    );
    for (let i = 0; i < slow; i++) {
      await sandbox.reset(`bench-new-${i}`);
      await sandbox.reset(`bench-direct-${i}`);
    }
    // Sessions began just now: the pool's refills were primed with the data stack.
    await sandbox.pool.whenFull();
    const primedPoolMemory = await measurePoolMemory(docker, instanceId);
    await cold.start();
    const idleMemory = await measureIdleMemory(docker, cold, { instanceId: `${instanceId}-cold`, sessions: slow });
    const containerStart = stats(
      await time(slow, async (i) => {
        const result = await cold.run(`bench-cold-${i}`, { language: 'python', code: 'print(1)' });
        if (result.status !== 'ok') throw new Error(`bench run failed: ${result.error?.value ?? result.status}`);
        await cold.reset(`bench-cold-${i}`);
      }),
    );
    return {
      runtime,
      ...(platform ? { platform } : {}),
      warmPrint,
      newSessionPandas,
      newSessionPandasDirect,
      poolMemory,
      primedPoolMemory,
      chart,
      idleSessionMemoryMb: idleMemory.cgroupMb,
      idleMemory,
      containerStart,
      languages,
      targets: {
        warmPrintP50Under5Ms: warmPrint.p50Ms <= 5,
        newSessionP50Under50Ms: newSessionPandas.p50Ms <= 50,
        idleMemoryAtMost70Mb: idleMemory.cgroupMb <= 70,
        leanIdleMemoryAtMost70Mb: idleMemory.lean.cgroupMb <= 70,
        poolMemoryAtMost70Mb: poolMemory.cgroupMb <= 70,
        chartAtMost115x: chart.ratio <= 1.15,
      },
    };
  } finally {
    await cold.close();
    await sandbox.close();
  }
}
