/** The statistics the tasks' expected answers are computed with, defined as pandas and numpy define them. */

export function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

export function mean(values: readonly number[]): number {
  return sum(values) / values.length;
}

/** The `q` quantile with linear interpolation between closest ranks (numpy's and pandas' default). */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Sample standard deviation (n − 1 in the denominator, pandas' default). */
export function sampleStd(values: readonly number[]): number {
  const m = mean(values);
  return Math.sqrt(sum(values.map((v) => (v - m) ** 2)) / (values.length - 1));
}

/** Pearson's correlation coefficient. */
export function pearson(xs: readonly number[], ys: readonly number[]): number {
  const mx = mean(xs);
  const my = mean(ys);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  xs.forEach((x, i) => {
    const dx = x - mx;
    const dy = ys[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  });
  return sxy / Math.sqrt(sxx * syy);
}

/** Slope of the least-squares line of ys on xs. */
export function slope(xs: readonly number[], ys: readonly number[]): number {
  const mx = mean(xs);
  const my = mean(ys);
  let sxy = 0;
  let sxx = 0;
  xs.forEach((x, i) => {
    sxy += (x - mx) * (ys[i]! - my);
    sxx += (x - mx) ** 2;
  });
  return sxy / sxx;
}

/** Sums `value(item)` per `key(item)`. */
export function totalsBy<T>(
  items: readonly T[],
  key: (item: T) => string,
  value: (item: T) => number,
): Map<string, number> {
  const totals = new Map<string, number>();
  for (const item of items) totals.set(key(item), (totals.get(key(item)) ?? 0) + value(item));
  return totals;
}

/**
 * The key with the largest value. A tie throws: a question whose answer is one name must have exactly one
 * right answer, so a generator that produced a tie is a bug the unit tests catch.
 */
export function argmaxUnique(totals: ReadonlyMap<string, number>): string {
  const ranked = [...totals].sort((a, b) => b[1] - a[1]);
  const [first, second] = ranked;
  if (!first) throw new Error('argmaxUnique of nothing');
  if (second && Math.abs(first[1] - second[1]) < 1e-9) throw new Error(`tie between ${first[0]} and ${second[0]}`);
  return first[0];
}

/** Keys ordered by value, largest first. */
export function rankedKeys(totals: ReadonlyMap<string, number>): string[] {
  return [...totals].sort((a, b) => b[1] - a[1]).map(([k]) => k);
}

/** Rounds to `decimals` places (for money that was generated in cents). */
export function round(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}
