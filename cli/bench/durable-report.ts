import type { BenchStats } from './bench-stats.js';
import type { CellLatency } from './durable-run-latency.js';
import type { DurableStateBench } from './durable-state-bench.js';
import type { DurableRunLatency } from './durable-run-latency.js';

/** The durable-thread figures of one runtime, as `threadlab bench sandbox` reports them. */
export interface DurableFigures {
  runtime: string;
  durableState: DurableStateBench;
  durableRuns: DurableRunLatency;
}

type Row<R> = (label: string, pick: (r: R) => string) => void;

const mib = (bytes: number) => (bytes / (1024 * 1024)).toFixed(bytes < 1024 * 1024 ? 3 : 1);
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;

/** The rows (g) and (h) of the bench's table: one column per runtime, p50 / p95 in milliseconds. */
export function printDurableRows<R extends DurableFigures>(
  runtimes: R[],
  row: Row<R>,
  cell: (s: BenchStats) => string,
): void {
  const first = runtimes[0];
  if (!first) return;
  printDurableStateRows(runtimes, row, cell);
  const pause = `pause ${(first.durableRuns.pauseMs / 1000).toFixed(1)} s (save lands)`;
  const onOff = (name: string, pick: (r: R) => CellLatency) => {
    row(`(h) ${name} back to back: durable threads on`, (r) => cell(pick(r).backToBack.on));
    row(`(h) ${name} back to back: durable threads off`, (r) => cell(pick(r).backToBack.off));
    row(`(h) ${name}, ${pause}: on`, (r) => cell(pick(r).paused.on));
    row(`(h) ${name}, ${pause}: off`, (r) => cell(pick(r).paused.off));
  };
  onOff('print(1)', (r) => r.durableRuns.print);
  onOff('pandas cell', (r) => r.durableRuns.pandasCell);
}

/** The rows (g) of the bench's table: save and restore of a DataFrame and of small variables, per runtime. */
export function printDurableStateRows<R extends Pick<DurableFigures, 'durableState'>>(
  runtimes: R[],
  row: Row<R>,
  cell: (s: BenchStats) => string,
): void {
  const first = runtimes[0];
  if (!first) return;
  const mb = first.durableState.dataFrame.megabytes;
  const frame = `${mb} MB DataFrame`;
  row(`(g) durable, ${frame}: save (asked to on host)`, (r) => cell(r.durableState.dataFrame.save));
  row(`(g) durable, ${frame}: save: the kernel pickling (the copy overlaps it)`, (r) =>
    cell(r.durableState.dataFrame.pickleInKernel),
  );
  row(`(g) durable, ${frame}: restore, extra on 1st run`, (r) => cell(r.durableState.dataFrame.restoreExtra));
  row('(g) durable, 1,000 small variables: save', (r) => cell(r.durableState.smallVariables.save));
  row('(g) durable, 1,000 small variables: restore, extra on 1st run', (r) =>
    cell(r.durableState.smallVariables.restoreExtra),
  );
  row('(g) baseline: new thread, 1st run, no saved state (pool hit)', (r) => cell(r.durableState.freshFirstRun));
  row('(g) import pandas in a new Python process (restore skips)', (r) => cell(r.durableState.pandasImport));
  row('(g) saved state (MiB): DataFrame / 1,000 variables', (r) => {
    const { dataFrame, smallVariables } = r.durableState;
    return `${mib(dataFrame.savedBytes)} / ${mib(smallVariables.savedBytes)}`;
  });
}

/** The ratios behind (g) and (h), and the limits they ran with, one line per runtime. */
export function printDurableSummary(runtimes: DurableFigures[], out: (line: string) => void): void {
  for (const { runtime, durableState: s, durableRuns: runs } of runtimes) {
    const p50 = (x: { on: BenchStats; off: BenchStats }) => ratio(x.on.p50Ms, x.off.p50Ms);
    const limits =
      s.limits.raised.length > 0 ? `raised to fit the DataFrame: ${s.limits.raised.join(', ')}` : 'as configured';
    out(
      `durable threads under ${runtime}: p50 on/off, print(1) ${p50(runs.print.backToBack)} back to back, ` +
        `${p50(runs.print.paused)} paused; pandas cell ${p50(runs.pandasCell.backToBack)}, ${p50(runs.pandasCell.paused)}; ` +
        `restore p50 vs a pandas import: 1,000 variables ${ratio(s.smallVariables.restoreExtra.p50Ms, s.pandasImport.p50Ms)}, ` +
        `DataFrame ${ratio(s.dataFrame.restoreExtra.p50Ms, s.pandasImport.p50Ms)}; ` +
        `variables back ${s.smallVariables.restoredVariables} and ${s.dataFrame.restoredVariables} (values checked)`,
    );
    out(
      `  limits: memory ${s.limits.memoryMb} MiB, data ${s.limits.dataMb} MiB, state max ${s.limits.stateMaxMb} MiB for ` +
        `saves and restores (${limits}); runs with state max ${runs.stateMaxMb} MiB vs 0, ` +
        `save delay ${runs.saveDelayMs} ms; saved after the runs: on ${runs.saved.on}, off ${runs.saved.off}`,
    );
  }
}
