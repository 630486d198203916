import { extractFigures } from './answer-figures.js';
import type { Figure, OutputSource, VerifyResult } from './figure.js';
import { buildNumberIndex, nearestInRange, type NumberIndex } from './number-index.js';

/** Figures checked per answer at most. */
export const DEFAULT_MAX_FIGURES = 200;
/** Characters of output scanned per turn at most: 2 MB of ASCII. */
export const DEFAULT_MAX_OUTPUT_CHARS = 2 * 1024 * 1024;

export interface VerifyFiguresOptions {
  /** The model's final answer (Markdown). */
  answer: string;
  /** What this turn's runs produced, in order: printed output, displayed values, tables, files read back. */
  outputs: OutputSource[];
  /** Figures checked at most; the rest are counted in `figuresUnchecked`. @defaultValue 200 */
  maxFigures?: number;
  /**
   * Characters of output scanned at most, across `outputs` in order; the rest is reported in
   * `output.scannedChars`. @defaultValue 2,097,152 (2 MB)
   */
  maxOutputChars?: number;
  /** Characters of output that exist but were not given (files over a read limit): reported as not scanned. */
  unreadChars?: number;
}

/**
 * Finds each figure the answer states in the turn's outputs. A figure is found when an output holds a
 * value that rounds to it at the precision the answer states: 12.35 is found in 12.3456, 12.4 is not; a
 * value exactly halfway is accepted rounded either way, so rounding half-up and half-even (and half-down)
 * all count; truncation does not (12.34 is not found in 12.3456). Signs must match.
 * A percentage is also found as a fraction (45 % in 0.4512), and a scaled figure also in its own unit
 * ("3.4M" in 3412345 or in 3.41). Outputs are tokenised once into a sorted index, so each figure costs a
 * binary search (and the matched ones are located in one pass); both limits are reported in the result,
 * never applied silently.
 */
export function verifyFigures(options: VerifyFiguresOptions): VerifyResult {
  const maxFigures = options.maxFigures ?? DEFAULT_MAX_FIGURES;
  const figures = extractFigures(options.answer);
  const checked = figures.slice(0, Math.max(0, maxFigures));
  const index = buildNumberIndex(options.outputs, { maxChars: options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS });
  const matched = checked.map((figure) => matchedValue(index, figure));
  const located = index.locateAll(matched.filter((v) => v !== undefined));
  return {
    checks: checked.map((figure, i) => ({ figure, found: located.get(matched[i] ?? NaN) ?? null })),
    figuresTotal: figures.length,
    figuresUnchecked: figures.length - checked.length,
    output: { totalChars: index.totalChars + (options.unreadChars ?? 0), scannedChars: index.scannedChars },
  };
}

/** The printed value nearest `figure` that rounds to it in one of its readings, or undefined. */
function matchedValue(index: NumberIndex, figure: Figure): number | undefined {
  for (const reading of readings(figure)) {
    const half = 0.5 * 10 ** -reading.decimals;
    // Decimal values are not exact in binary: a tie such as 12.345 must not fall out by a rounding error.
    const slack = half * 1e-9 + Math.abs(reading.value) * 1e-15;
    const lo = reading.value - half - slack;
    const position = nearestInRange(index.values, reading.value, lo, reading.value + half + slack);
    if (position !== undefined) return index.values[position];
  }
  return undefined;
}

/** The values (and their stated decimals) an output may print a figure as. */
function readings(figure: Figure): { value: number; decimals: number }[] {
  const all = [{ value: figure.value, decimals: figure.decimals }];
  if (figure.percent) all.push({ value: figure.value / 100, decimals: figure.decimals + 2 });
  if (figure.mantissa) all.push(figure.mantissa);
  return all;
}
