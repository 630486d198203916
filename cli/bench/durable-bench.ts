import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import type { Logger } from '../../src/logger.js';
import type { SandboxLimits, SandboxRuntime } from '../../app/sandbox-kit.js';
import type { BenchStats } from './bench-stats.js';
import { benchRuntimes } from './bench-runtimes.js';
import { printDurableStateRows } from './durable-report.js';
import { benchDurableState, type DurableStateBench } from './durable-state-bench.js';

export interface DurableCommandOptions {
  docker: Docker;
  image: string;
  limits: SandboxLimits;
  dataDir: string;
  logger: Logger;
  /** Saves and restores measured per kind of thread and runtime. @defaultValue 5 */
  samples: number;
  /** Size of the DataFrame, in MB of float64. @defaultValue 100 */
  frameMb?: number;
  /** The runtimes to measure. @defaultValue runc, and runsc when the engine has it */
  runtimes?: SandboxRuntime[];
  out: (line: string) => void;
}

/** The targets of durable threads (issue 28): a 100 MB DataFrame saved and restored in 1 s, small states in 50 ms. */
export const DURABLE_TARGETS = { frameMs: 1000, smallMs: 50 } as const;

export interface DurableRow {
  runtime: SandboxRuntime;
  durableState: DurableStateBench;
  targets: { frameSave: boolean; frameRestore: boolean; smallSave: boolean; smallRestore: boolean };
}

/**
 * `threadlab bench durable`: only the save and restore figures of `threadlab bench sandbox` (g), under each
 * runtime one after the other, with the targets checked on p50.
 */
export async function benchDurable(options: DurableCommandOptions): Promise<DurableRow[]> {
  const { out } = options;
  const frameMb = options.frameMb ?? 100;
  const { runtimes, runscSkipped } = await benchRuntimes(options.docker, options.runtimes);
  out(
    `threadlab bench durable: save and restore of a ${frameMb} MB DataFrame and of 1,000 small variables, ` +
      `${options.samples} samples each, runtimes ${runtimes.join(', ')}`,
  );
  if (runscSkipped) out(`  runsc left out: ${runscSkipped}`);
  const rows: DurableRow[] = [];
  for (const runtime of runtimes) {
    const durableState = await benchDurableState(
      {
        ...options,
        runtime,
        instanceId: `bench-durable-${runtime}-${process.pid}-${randomBytes(3).toString('hex')}`,
        iterations: options.samples,
        slow: options.samples,
      },
      frameMb,
    );
    const { dataFrame, smallVariables } = durableState;
    rows.push({
      runtime,
      durableState,
      targets: {
        frameSave: dataFrame.save.p50Ms <= DURABLE_TARGETS.frameMs,
        frameRestore: dataFrame.restoreExtra.p50Ms <= DURABLE_TARGETS.frameMs,
        smallSave: smallVariables.save.p50Ms < DURABLE_TARGETS.smallMs,
        smallRestore: smallVariables.restoreExtra.p50Ms < DURABLE_TARGETS.smallMs,
      },
    });
  }
  const cell = (s: BenchStats) => `${s.p50Ms.toFixed(1).padStart(8)} / ${s.p95Ms.toFixed(1).padStart(8)}`;
  const row = (label: string, pick: (r: DurableRow) => string) =>
    out(`${label.padEnd(62)}${rows.map((r) => pick(r).padStart(24)).join('')}`);
  out('');
  out(`${''.padEnd(62)}${rows.map((r) => `${r.runtime} p50 / p95 ms`.padStart(24)).join('')}`);
  printDurableStateRows(rows, row, cell);
  const mark = (ok: boolean) => (ok ? 'met' : 'NOT met');
  for (const r of rows) {
    const raised = r.durableState.limits.raised;
    out(
      `${r.runtime}: ${frameMb} MB save <= 1 s ${mark(r.targets.frameSave)}, restore <= 1 s ${mark(r.targets.frameRestore)}; ` +
        `small save < 50 ms ${mark(r.targets.smallSave)}, restore < 50 ms ${mark(r.targets.smallRestore)}` +
        (raised.length > 0 ? ` (limits raised to fit the DataFrame: ${raised.join(', ')})` : ''),
    );
  }
  return rows;
}
