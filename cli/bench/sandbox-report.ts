import type { BenchStats } from './bench-stats.js';
import type { ChartLatency } from './chart-latency.js';
import { printDurableRows, printDurableSummary } from './durable-report.js';
import type { DurableRunLatency } from './durable-run-latency.js';
import type { DurableStateBench } from './durable-state-bench.js';
import type { LanguageBench } from './language-bench.js';
import { columnLabel } from './platform-columns.js';
import type { IdleMemory } from './sandbox-memory.js';
import type { GvisorPlatform, SandboxRuntime } from '../../app/sandbox-kit.js';

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

/** Prints the report as `threadlab bench sandbox` shows it: one column per runtime, then the baselines and the targets. */
export function printSandboxReport(report: BenchReport, out: (line: string) => void): void {
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
