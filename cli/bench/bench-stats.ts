/** Latency percentiles of one measurement, in milliseconds. */
export interface BenchStats {
  samples: number;
  p50Ms: number;
  p95Ms: number;
}

/** Nearest-rank p50 and p95 of samples in milliseconds. */
export function stats(samplesMs: number[]): BenchStats {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  return { samples: sorted.length, p50Ms: round(at(0.5)), p95Ms: round(at(0.95)) };
}

/** Rounds to two decimals, as the reports print them. */
export const round = (n: number): number => Math.round(n * 100) / 100;

/** Times `fn` `times` times in milliseconds; `before` runs ahead of each sample, outside its time. */
export async function time(
  times: number,
  fn: (i: number) => Promise<void>,
  before?: (i: number) => Promise<void>,
): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    await before?.(i);
    const start = performance.now();
    await fn(i);
    samples.push(performance.now() - start);
  }
  return samples;
}
