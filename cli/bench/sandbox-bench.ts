import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import type { Logger } from '../../src/logger.js';
import type { ArtifactRenderer } from '../../src/ports/artifact-renderer.js';
import {
  LABELS,
  type SandboxLimits,
  DockerSandbox,
  registeredRuntimes,
  RUNSC_INSTALL_HINT,
  type SandboxRuntime,
  type GvisorPlatform,
} from '../../app/sandbox-kit.js';
import { benchColumns, columnLabel } from './platform-columns.js';
import { round, stats, time, type BenchStats } from './bench-stats.js';
import { benchDurableRuns, type DurableRunLatency } from './durable-run-latency.js';
import { benchDurableState, type DurableStateBench } from './durable-state-bench.js';
import { printDurableRows, printDurableSummary } from './durable-report.js';
import { benchChartLatency, type ChartLatency } from './chart-latency.js';
import { benchLanguages, type LanguageBench } from './language-bench.js';
import { measureIdleMemory, measurePoolMemory, type IdleMemory } from './sandbox-memory.js';

export { stats, type BenchStats } from './bench-stats.js';

export interface BenchOptions {
  docker: Docker;
  image: string;
  limits: SandboxLimits;
  dataDir: string;
  logger: Logger;
  /** Renders a chart's PNG as a reply posts it (the configured renderer). */
  renderer: ArtifactRenderer;
  /** Longest side of posted images (THREADLAB_REPLY_MAX_IMAGE_PX). @defaultValue 2048 */
  maxImageDimensionPx?: number;
  /** Samples of the fast measurements; the slow baselines take fewer. @defaultValue 20 */
  iterations?: number;
  /** The runtimes to measure side by side. @defaultValue runc, and runsc when the engine has it */
  runtimes?: SandboxRuntime[];
  /** Size of the DataFrame the durable-thread measurement saves and restores, in MB of float64. @defaultValue 100 */
  durableFrameMb?: number;
  /** Receives each line of the report. */
  out: (line: string) => void;
}

/** The sandbox's own figures under one runtime. */
export interface RuntimeBench {
  runtime: SandboxRuntime;
  /** gVisor's platform of this column, where the engine has a runtime per platform (one column each that works). */
  platform?: GvisorPlatform;
  /** (a) A warm session running `print(1)`. */
  warmPrint: BenchStats;
  /**
   * (b) A new session's first run of `import pandas as pd; print(pd.__version__)`, served by the pool, after the
   * sandbox was prepared (as a model turn prepares it while the model writes the code).
   */
  newSessionPandas: BenchStats;
  /**
   * (b) The same sent as code to run as is: no prepare. The pool primes the containers it starts while sessions
   * begin, so this pays the import only in a container started at rest.
   */
  newSessionPandasDirect: BenchStats;
  /** (e) What an idle pooled sandbox holds at rest (no session began lately: no data stack), in MiB. */
  poolMemory: { containers: number; cgroupMb: number; engineMb: number };
  /** (e) The same while sessions are beginning (the pool primes its refills with the data stack). */
  primedPoolMemory: { containers: number; cgroupMb: number; engineMb: number };
  /** (d) A small matplotlib chart end to end (rendered for chat as posted), beside the same figure rendered inside. */
  chart: ChartLatency;
  /**
   * (e) Memory one idle session holds on the host after a typical first turn, in MiB: its cgroup's charge without the
   * shared file cache, gVisor's memory file included ({@link IdleMemory.cgroupMb}).
   */
  idleSessionMemoryMb: number;
  /** (e) The same, with the engine's figure and the fall of the host's available memory beside it. */
  idleMemory: IdleMemory;
  /** (f) A container start: create, start, the runner's libraries imported and ready, with no pool. */
  containerStart: BenchStats;
  /** (i) R and JavaScript in a warm thread, where the image has them: first run (session start) and later runs. */
  languages: LanguageBench[];
  /** (g) Durable threads: save and restore of a DataFrame thread and of a thread of 1,000 small variables. */
  durableState: DurableStateBench;
  /** (h) Durable threads: what they add to a normal run, on vs off, back to back and with the save between runs. */
  durableRuns: DurableRunLatency;
  targets: {
    warmPrintP50Under5Ms: boolean;
    newSessionP50Under50Ms: boolean;
    idleMemoryAtMost70Mb: boolean;
    /** Per idle session after a pandas turn, once its kernel went lean. */
    leanIdleMemoryAtMost70Mb: boolean;
    poolMemoryAtMost70Mb: boolean;
    chartAtMost115x: boolean;
  };
}

export interface BenchReport {
  /** One entry per runtime measured, runc first. */
  runtimes: RuntimeBench[];
  /** Why runsc was not measured, when it was not. */
  runscSkipped?: string;
  /** The gVisor platforms left out because they failed their probe, and why. */
  platformsSkipped?: string[];
  /** (c) `docker run --rm IMAGE python3 -c "import pandas…"` through the API (create, start, wait, remove), runc. */
  naiveDockerRun: BenchStats;
  /** (c) `docker exec` of a fresh python with the same import in a running container, runc. */
  naiveDockerExec: BenchStats;
  /** The sandbox image's size, in MB (the engine's count). */
  imageMb: number;
  /** How many times faster runc's (b) is than each naive baseline, on p50. */
  speedup: { vsDockerRun: number; vsDockerExec: number };
  targets: { newSession15xFasterThanDockerRun: boolean };
}

/** Baseline containers carry the sandbox labels, so orphan removal cleans up after a crashed bench. */
const baselineLabels = (instanceId: string) => ({
  [LABELS.sandbox]: '1',
  [LABELS.instance]: instanceId,
  [LABELS.session]: 'bench',
  [LABELS.host]: hostname(),
  [LABELS.pid]: String(process.pid),
});

const PANDAS = 'import pandas as pd; print(pd.__version__)';

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
  let execContainer: Docker.Container | undefined;
  try {
    const naiveDockerRun = stats(await time(slow, () => dockerRunOnce(docker, image, instanceId)));
    execContainer = await docker.createContainer({
      Image: image,
      Entrypoint: ['/usr/bin/tini', '-s', '--'],
      Cmd: ['sleep', 'infinity'],
      Labels: baselineLabels(instanceId),
      HostConfig: { NetworkMode: 'none' },
    });
    await execContainer.start();
    const running = execContainer;
    const naiveDockerExec = stats(await time(slow, () => dockerExecOnce(running)));
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
    printReport(report, out);
    return report;
  } finally {
    await execContainer?.remove({ force: true }).catch(() => undefined);
  }
}

/** The sandbox's own measurements under one runtime, on a sandbox of its own (and one without a pool). */
async function benchRuntime(
  options: BenchOptions,
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

async function dockerRunOnce(docker: Docker, image: string, instanceId: string): Promise<void> {
  const container = await docker.createContainer({
    Image: image,
    Labels: baselineLabels(instanceId),
    Cmd: ['python3', '-c', PANDAS],
    HostConfig: { NetworkMode: 'none' },
  });
  try {
    await container.start();
    const { StatusCode } = (await container.wait()) as { StatusCode: number };
    if (StatusCode !== 0) throw new Error(`docker run baseline exited with ${StatusCode}`);
  } finally {
    await container.remove({ force: true });
  }
}

async function dockerExecOnce(container: Docker.Container): Promise<void> {
  const exec = await container.exec({ Cmd: ['python3', '-c', PANDAS], AttachStdout: true, AttachStderr: true });
  const stream = (await exec.start({ hijack: true, stdin: false })) as unknown as Duplex;
  await new Promise<void>((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', reject);
    stream.resume();
  });
  const info = await exec.inspect();
  if (info.ExitCode !== 0) throw new Error(`docker exec baseline exited with ${info.ExitCode}`);
}

function printReport(report: BenchReport, out: (line: string) => void): void {
  const cell = (s: BenchStats) => `${s.p50Ms.toFixed(1).padStart(8)} / ${s.p95Ms.toFixed(1).padStart(8)}`;
  // Wide enough for the longest heading (runsc-systrap), with two spaces between columns.
  const width = Math.max(24, ...report.runtimes.map((r) => `${columnLabel(r)} p50 / p95 ms`.length + 2));
  const header = report.runtimes.map((r) => `${columnLabel(r)} p50 / p95 ms`.padStart(width)).join('');
  const row = (label: string, pick: (r: RuntimeBench) => string) =>
    out(`${label.padEnd(60)}${report.runtimes.map((r) => pick(r).padStart(width)).join('')}`);
  out(`${''.padEnd(60)}${header}`);
  row('(a) warm session: print(1)', (r) => cell(r.warmPrint));
  row('(b) new thread, first run: import pandas (pool hit, prepared)', (r) => cell(r.newSessionPandas));
  row('(b) the same sent as is (no prepare; the pool primes while sessions begin)', (r) =>
    cell(r.newSessionPandasDirect),
  );
  row('(d) a matplotlib chart rendered and saved inside the sandbox', (r) => cell(r.chart.inside));
  row('(d) the same chart end to end (PNG back, rendered for chat)', (r) => cell(r.chart.endToEnd));
  row('(d) end to end / inside, p50 (x)', (r) => r.chart.ratio.toFixed(2));
  row('(e) memory per idle pooled sandbox at rest, host view (MiB)', (r) => String(r.poolMemory.cgroupMb));
  row('(e) the same, primed while sessions begin (MiB)', (r) => String(r.primedPoolMemory.cgroupMb));
  row('(e) memory per idle session after a pandas turn (MiB)', (r) => String(r.idleMemory.cgroupMb));
  row("(e) the engine's figure (docker stats) (MiB)", (r) => String(r.idleMemory.engineMb));
  row('(e) fall of host MemAvailable per session (MiB, noisy)', (r) => String(r.idleMemory.hostDropMb));
  row('(e) memory per idle session after a pandas turn, once its kernel went lean (MiB)', (r) =>
    String(r.idleMemory.lean.cgroupMb),
  );
  row("(e) the engine's figure, kernel lean (MiB)", (r) => String(r.idleMemory.lean.engineMb));
  row('(f) container start to ready, first print(1) (no pool)', (r) => cell(r.containerStart));
  for (const language of ['r', 'javascript'] as const) {
    const name = language === 'r' ? 'R' : 'JavaScript';
    const pick = (r: RuntimeBench) => r.languages.find((l) => l.language === language);
    if (!report.runtimes.some(pick)) continue;
    row(`(i) warm thread, first ${name} run (session starts)`, (r) => (pick(r) ? cell(pick(r)!.first) : '-'));
    row(`(i) warm thread, later ${name} runs`, (r) => (pick(r) ? cell(pick(r)!.later) : '-'));
  }
  printDurableRows(report.runtimes, row, cell);
  if (report.runscSkipped) out(`runsc: skipped, ${report.runscSkipped}`);
  for (const skipped of report.platformsSkipped ?? []) out(`gVisor platform skipped: ${skipped}`);
  const naive = (label: string, s: BenchStats) =>
    out(`${label.padEnd(60)}${`p50 ${s.p50Ms.toFixed(1)} ms, p95 ${s.p95Ms.toFixed(1)} ms (runc)`.padStart(24)}`);
  naive('(c) naive: docker run --rm IMAGE python3 -c import pandas', report.naiveDockerRun);
  naive('(c) naive: docker exec python3 -c import pandas', report.naiveDockerExec);
  out(
    `speedup of (b) under runc: ${report.speedup.vsDockerRun}x vs docker run, ${report.speedup.vsDockerExec}x vs docker exec`,
  );
  printDurableSummary(
    report.runtimes.map((r) => ({ ...r, runtime: columnLabel(r) })),
    out,
  );
  out(`sandbox image: ${report.imageMb} MB`);
  const mark = (ok: boolean) => (ok ? 'met' : 'MISSED');
  out(
    `targets: ${report.runtimes
      .map(
        (r) =>
          `${columnLabel(r)} (a) <= 5 ms ${mark(r.targets.warmPrintP50Under5Ms)}, (b) <= 50 ms ${mark(r.targets.newSessionP50Under50Ms)}, ` +
          `(d) <= 1.15x ${mark(r.targets.chartAtMost115x)}, (e) <= 70 MiB pooled ${mark(r.targets.poolMemoryAtMost70Mb)}, after a pandas turn ${mark(r.targets.idleMemoryAtMost70Mb)}, ` +
          `once its kernel went lean ${mark(r.targets.leanIdleMemoryAtMost70Mb)}, ` +
          `(h) back to back p50 unchanged (within 10 % or 0.5 ms) ${mark(r.durableRuns.print.unchangedAtP50 && r.durableRuns.pandasCell.unchangedAtP50)}`,
      )
      .join('; ')}; (b) >= 15x faster than docker run ${mark(report.targets.newSession15xFasterThanDockerRun)}`,
  );
}
