import type { FoundAt, OutputSource } from './figure.js';
import { isMinus } from './number-syntax.js';

/**
 * An output's numbers as printed: digits with optional comma groups, a decimal part and an exponent
 * ("1234", "1,234.5", "1.234e+06", "-0.5", ".5"). Every repetition starts with a fixed character, so the
 * pattern cannot backtrack beyond one group.
 */
const OUTPUT_NUMBER = /(?:\d+((?:,\d{3}(?!\d))*)(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d{1,3})?/g;

/** Tokens past this length are not parsed as numbers (ids, hashes, a line of digits). */
const MAX_TOKEN_CHARS = 64;

/**
 * The numbers of the turn's outputs, tokenised once: a sorted array of the distinct values for range
 * queries, and where each value first appears. Built in one pass over the text; each lookup is a binary
 * search.
 */
export interface NumberIndex {
  /** The distinct values, ascending. */
  readonly values: Float64Array;
  /** Where the value was first printed. */
  locate(value: number): FoundAt;
  /** Characters of output given, and how many were tokenised (fewer when the cap cut them). */
  totalChars: number;
  scannedChars: number;
}

export interface NumberIndexOptions {
  /** Characters of output tokenised at most, across sources in order; the rest is counted, not scanned. */
  maxChars: number;
}

interface Locations {
  source: number[];
  line: number[];
  start: number[];
  end: number[];
}

/** Tokenises the outputs' numbers (up to `maxChars` characters in all) into a `NumberIndex`. */
export function buildNumberIndex(sources: OutputSource[], options: NumberIndexOptions): NumberIndex {
  const first = new Map<number, number>();
  const at: Locations = { source: [], line: [], start: [], end: [] };
  const add = (value: number, where: [source: number, line: number, start: number, end: number]) => {
    if (!Number.isFinite(value) || first.has(value)) return;
    first.set(value, at.source.length);
    at.source.push(where[0]);
    at.line.push(where[1]);
    at.start.push(where[2]);
    at.end.push(where[3]);
  };
  let budget = options.maxChars;
  let totalChars = 0;
  let scannedChars = 0;
  for (const [s, source] of sources.entries()) {
    totalChars += source.text.length;
    const text = scannedPart(source.text, budget);
    budget -= text.length;
    scannedChars += text.length;
    let line = 1;
    let nextNewline = text.indexOf('\n');
    for (const m of text.matchAll(OUTPUT_NUMBER)) {
      while (nextNewline !== -1 && nextNewline < m.index) {
        line++;
        nextNewline = text.indexOf('\n', nextNewline + 1);
      }
      if (m[0].length > MAX_TOKEN_CHARS) continue;
      const negative = isMinus(text[m.index - 1]) && !/[\w.)]/.test(text[m.index - 2] ?? '');
      const sign = negative ? '-' : '';
      const where: [number, number, number, number] = [s, line, m.index - sign.length, m.index + m[0].length];
      add(Number(sign + (m[1] ? m[0].replaceAll(',', '') : m[0])), where);
      // "1,234" in a CSV is two fields: each group is indexed too, so either reading is found.
      if (m[1]) for (const [i, part] of m[0].split(',').entries()) add(Number((i === 0 ? sign : '') + part), where);
    }
  }
  const values = Float64Array.from(first.keys()).sort();
  return {
    values,
    totalChars,
    scannedChars,
    locate(value) {
      const i = first.get(value)!;
      const source = sources[at.source[i]!]!;
      return { run: source.run, kind: source.kind, line: at.line[i]!, text: source.text.slice(at.start[i], at.end[i]) };
    },
  };
}

/** The part of `text` that fits `budget` characters, cut after its last whole line when one fits. */
function scannedPart(text: string, budget: number): string {
  if (text.length <= budget) return text;
  if (budget <= 0) return '';
  const nl = text.lastIndexOf('\n', budget - 1);
  return text.slice(0, nl > 0 ? nl + 1 : budget);
}

/**
 * The indexed value nearest `target` within [lo, hi], or undefined when none lies there. Binary search for
 * the first value ≥ target; the nearest is it or the one before.
 */
export function nearestInRange(values: Float64Array, target: number, lo: number, hi: number): number | undefined {
  let a = 0;
  let b = values.length;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if (values[mid]! < target) a = mid + 1;
    else b = mid;
  }
  const above = a < values.length ? values[a]! : undefined;
  const below = a > 0 ? values[a - 1]! : undefined;
  const inside = (v: number | undefined) => v !== undefined && v >= lo && v <= hi;
  if (inside(above) && inside(below)) return above! - target <= target - below! ? above : below;
  return inside(above) ? above : inside(below) ? below : undefined;
}
