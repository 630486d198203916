import { availableParallelism, loadavg } from 'node:os';
import { formatBytes } from '../../src/domain/text/format.js';
import { verifyFigures } from '../../src/verify/verify-figures.js';
import { stats, type BenchStats } from './bench-stats.js';
import { sampleAnswer, sampleOutputs } from './figures-samples.js';

export interface FiguresBenchOptions {
  /** Timed checks per row. @defaultValue 30 */
  repetitions?: number;
  /** Characters of the answer. @defaultValue 5 KB (5,120) */
  answerChars?: number;
  /** Output sizes in characters, one row each. @defaultValue 100 KB and 2 MB (102,400 and 2,097,152) */
  outputChars?: number[];
  /** Receives each printed line. */
  out: (line: string) => void;
}

/** One row: an output size and the time to check the answer against it (wall clock, and CPU p50). */
export interface FiguresRow extends BenchStats {
  outputChars: number;
  figures: number;
  found: number;
  /** This process's CPU time per check, p50: what the check costs when it does not wait for a core. */
  cpuP50Ms: number;
}

/** The time a 100 KB output and a 5 KB answer must be checked in (issue 27). */
const TARGET_MS = 50;

/**
 * `threadlab bench figures`: the time to check a model's answer (5 KB, ~100 figures) against a turn's
 * outputs of 100 KB and 2 MB: tokenising the outputs into the index, reading the figures and finding each.
 * One untimed check first, so compilation is not counted.
 */
export function benchFigures(options: FiguresBenchOptions): FiguresRow[] {
  const { out } = options;
  const repetitions = options.repetitions ?? 30;
  const answerChars = options.answerChars ?? 5 * 1024;
  out(`threadlab figures bench: ${repetitions} checks per row, p50 and p95 in ms`);
  // A shared machine's waits show in every figure below; the load says how much to trust them.
  out(`load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`);
  out('  output      answer     figures   found    p50 ms    p95 ms  cpu p50 ms');
  const rows: FiguresRow[] = [];
  for (const outputChars of options.outputChars ?? [100 * 1024, 2 * 1024 * 1024]) {
    const outputs = sampleOutputs(outputChars);
    const answer = sampleAnswer(outputs, answerChars);
    const first = verifyFigures({ answer, outputs });
    const samples: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < repetitions; i++) {
      const started = performance.now();
      const cpuStarted = process.cpuUsage();
      verifyFigures({ answer, outputs });
      const used = process.cpuUsage(cpuStarted);
      samples.push(performance.now() - started);
      cpu.push((used.user + used.system) / 1000);
    }
    const found = first.checks.filter((c) => c.found !== null).length;
    const cpuP50Ms = stats(cpu).p50Ms;
    const row: FiguresRow = { outputChars, figures: first.checks.length, found, ...stats(samples), cpuP50Ms };
    rows.push(row);
    out(
      `  ${formatBytes(outputChars).padEnd(10)}  ${formatBytes(answer.length).padEnd(9)}  ${String(row.figures).padStart(7)}  ${String(found).padStart(6)}  ${row.p50Ms.toFixed(2).padStart(8)}  ${row.p95Ms.toFixed(2).padStart(8)}  ${cpuP50Ms.toFixed(2).padStart(10)}`,
    );
    if (first.figuresUnchecked > 0) out(`  (${first.figuresUnchecked} more figures past the limit not checked)`);
  }
  const [small, large] = rows;
  if (small) {
    const verdict = small.p95Ms < TARGET_MS ? 'met' : 'NOT met';
    out(
      `${formatBytes(small.outputChars)} output: p95 ${small.p95Ms.toFixed(2)} ms against a ${TARGET_MS} ms target (${verdict}); CPU p50 ${small.cpuP50Ms.toFixed(2)} ms`,
    );
  }
  if (small && large)
    out(
      `${formatBytes(large.outputChars)} / ${formatBytes(small.outputChars)}: ${(large.outputChars / small.outputChars).toFixed(1)}× the output took ${(large.p50Ms / small.p50Ms).toFixed(1)}× the time (p50)`,
    );
  return rows;
}
