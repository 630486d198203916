import { randomBytes } from 'node:crypto';
import { registeredRuntimes, RUNSC_INSTALL_HINT, type SandboxRuntime } from '../../app/sandbox-kit.js';
import { benchColumns, columnLabel } from './platform-columns.js';
import { round } from './bench-stats.js';
import { benchDurableRuns } from './durable-run-latency.js';
import { benchDurableState } from './durable-state-bench.js';
import { benchDockerBaselines } from './docker-baselines.js';
import { benchRuntime, type RuntimeBenchOptions } from './runtime-bench.js';
import { printSandboxReport, type BenchReport, type RuntimeBench } from './sandbox-report.js';

export { stats, type BenchStats } from './bench-stats.js';

export interface BenchOptions extends RuntimeBenchOptions {
  /** Samples of the fast measurements; the slow baselines take fewer. @defaultValue 20 */
  iterations?: number;
  /** The runtimes to measure side by side. @defaultValue runc, and runsc when the engine has it */
  runtimes?: SandboxRuntime[];
  /** Size of the DataFrame the durable-thread measurement saves and restores, in MB of float64. @defaultValue 100 */
  durableFrameMb?: number;
  /** Receives each line of the report. */
  out: (line: string) => void;
}

/**
 * Runs the sandbox benchmark under each runtime (runc and, when registered, gVisor's runsc) side by side,
 * with the naive docker run / docker exec baselines (under runc), and prints a report.
 */
export async function benchSandbox(options: BenchOptions): Promise<BenchReport> {
  const { docker, image, out } = options;
  const iterations = options.iterations ?? 20;
  const slow = Math.max(3, Math.min(iterations, 8));
  const registered = await registeredRuntimes(docker);
  const wanted = options.runtimes ?? ['runc', 'runsc'];
  const runtimes = wanted.filter((r) => r === 'runc' || registered.includes(r));
  const runscSkipped =
    wanted.includes('runsc') && !runtimes.includes('runsc')
      ? `runsc is not registered with the Docker engine (${RUNSC_INSTALL_HINT})`
      : undefined;
  const { columns, platformsSkipped } = await benchColumns(options, runtimes, registered);
  out(
    `threadlab sandbox bench: image ${image}, ${iterations} iterations (${slow} for container starts), runtimes ${columns.map(columnLabel).join(', ')}`,
  );
  if (runscSkipped) out(`runsc skipped: ${runscSkipped}`);
  for (const skipped of platformsSkipped) out(`gVisor platform skipped: ${skipped}`);
  const measured: RuntimeBench[] = [];
  for (const column of columns) {
    const { runtime, platform } = column;
    const own = await benchRuntime(options, column, iterations, slow);
    const durable = {
      ...options,
      runtime,
      ...(platform ? { platform } : {}),
      instanceId: `bench-durable-${columnLabel(column)}-${process.pid}-${randomBytes(3).toString('hex')}`,
      iterations,
      slow,
    };
    const durableState = await benchDurableState(durable, options.durableFrameMb ?? 100);
    measured.push({ ...own, durableState, durableRuns: await benchDurableRuns(durable) });
  }

  const instanceId = `bench-${process.pid}-${randomBytes(3).toString('hex')}`;
  const { naiveDockerRun, naiveDockerExec } = await benchDockerBaselines(docker, { image, instanceId, samples: slow });
  const base = measured[0]!.newSessionPandas.p50Ms;
  const imageMb = Math.round(((await docker.getImage(image).inspect()).Size ?? 0) / 1e6);
  const report: BenchReport = {
    runtimes: measured,
    imageMb,
    ...(runscSkipped ? { runscSkipped } : {}),
    ...(platformsSkipped.length ? { platformsSkipped } : {}),
    naiveDockerRun,
    naiveDockerExec,
    speedup: { vsDockerRun: round(naiveDockerRun.p50Ms / base), vsDockerExec: round(naiveDockerExec.p50Ms / base) },
    targets: { newSession15xFasterThanDockerRun: naiveDockerRun.p50Ms / base >= 15 },
  };
  printSandboxReport(report, out);
  return report;
}
