import type { FoundAt, OutputSource } from './figure.js';

/**
 * An output's numbers as printed: digits with optional comma groups, a decimal part and an exponent
 * ("1234", "1,234.5", "1.234e+06", "-0.5", ".5"). Every repetition starts with a fixed character, so the
 * pattern cannot backtrack beyond one group.
 */
const OUTPUT_NUMBER = /(?:\d+((?:,\d{3}(?!\d))*)(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d{1,3})?/g;

/** Tokens past this length are not parsed as numbers (ids, hashes, a line of digits). */
const MAX_TOKEN_CHARS = 64;

/**
 * The numbers of the turn's outputs, tokenised once: their values sorted for range queries, and where
 * each was printed. Built in one pass over the text; each lookup is a binary search.
 */
export interface NumberIndex {
  /** Every value printed, ascending. */
  readonly values: Float64Array;
  /**
   * Where each of `wanted` (values of `values`) was first printed, in one pass over the printed order: a
   * few figures' locations cost less this way than a map from every printed value to its place.
   */
  locateAll(wanted: Iterable<number>): Map<number, FoundAt>;
  /** Characters of output given, and how many were tokenised (fewer when the cap cut them). */
  totalChars: number;
  scannedChars: number;
}

export interface NumberIndexOptions {
  /** Characters of output tokenised at most, across sources in order; the rest is counted, not scanned. */
  maxChars: number;
}

const MINUS = 0x2d;
const UNICODE_MINUS = 0x2212;

/** Whether the character code before a "-" makes it a joiner ("2024-05", "x-1", "1.-") rather than a sign. */
const joinsBefore = (code: number): boolean =>
  (code >= 0x30 && code <= 0x39) ||
  (code >= 0x41 && code <= 0x5a) ||
  (code >= 0x61 && code <= 0x7a) ||
  code === 0x5f ||
  code === 0x2e ||
  code === 0x29;

/** Tokenises the outputs' numbers (up to `maxChars` characters in all) into a `NumberIndex`. */
export function buildNumberIndex(sources: OutputSource[], options: NumberIndexOptions): NumberIndex {
  // Every value in the order printed, and four numbers per value, flat: source index, line, start and end
  // offsets of the printed number. A native numeric sort of the values costs a fraction of a map.
  const printed: number[] = [];
  const where: number[] = [];
  const add = (value: number, source: number, line: number, start: number, end: number) => {
    if (!Number.isFinite(value)) return;
    printed.push(value);
    where.push(source, line, start, end);
  };
  let budget = options.maxChars;
  let totalChars = 0;
  let scannedChars = 0;
  const re = new RegExp(OUTPUT_NUMBER.source, 'g');
  for (const [s, source] of sources.entries()) {
    totalChars += source.text.length;
    const text = scannedPart(source.text, budget);
    // Once a source is cut, the ones after it are not scanned: the limit cuts the outputs in order.
    budget = text.length < source.text.length ? 0 : budget - text.length;
    scannedChars += text.length;
    let line = 1;
    let nextNewline = text.indexOf('\n');
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      while (nextNewline !== -1 && nextNewline < m.index) {
        line++;
        nextNewline = text.indexOf('\n', nextNewline + 1);
      }
      const token = m[0];
      if (token.length > MAX_TOKEN_CHARS) continue;
      const before = text.charCodeAt(m.index - 1);
      const negative = (before === MINUS || before === UNICODE_MINUS) && !joinsBefore(text.charCodeAt(m.index - 2));
      const start = negative ? m.index - 1 : m.index;
      const end = m.index + token.length;
      const sign = negative ? '-' : '';
      add(Number(sign + (m[1] ? token.replaceAll(',', '') : token)), s, line, start, end);
      // "1,234" in a CSV is two fields: each group is indexed too, so either reading is found.
      if (m[1])
        for (const [i, part] of token.split(',').entries())
          add(Number((i === 0 ? sign : '') + part), s, line, start, end);
    }
  }
  return {
    values: Float64Array.from(printed).sort(),
    totalChars,
    scannedChars,
    locateAll(wanted) {
      const missing = new Set(wanted);
      const located = new Map<number, FoundAt>();
      for (let i = 0; i < printed.length && missing.size > 0; i++) {
        const value = printed[i]!;
        if (!missing.has(value)) continue;
        missing.delete(value);
        const source = sources[where[4 * i]!]!;
        const text = source.text.slice(where[4 * i + 2], where[4 * i + 3]);
        located.set(value, {
          run: source.run,
          kind: source.kind,
          ...(source.name !== undefined ? { name: source.name } : {}),
          line: where[4 * i + 1]!,
          text,
        });
      }
      return located;
    },
  };
}

/**
 * The part of `text` that fits `budget` characters, cut after its last whole line, or else after its last
 * whitespace, so no number is cut in two (a cut "77.125" must not read 77.12).
 */
function scannedPart(text: string, budget: number): string {
  if (text.length <= budget) return text;
  if (budget <= 0) return '';
  const nl = text.lastIndexOf('\n', budget - 1);
  if (nl !== -1) return text.slice(0, nl + 1);
  let cut = budget;
  while (cut > 0 && !/\s/.test(text[cut - 1]!)) cut--;
  return text.slice(0, cut);
}

/** The first position of `values` (ascending) holding a value ≥ `target`; `values.length` when none. */
function lowerBound(values: Float64Array, target: number): number {
  let a = 0;
  let b = values.length;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if (values[mid]! < target) a = mid + 1;
    else b = mid;
  }
  return a;
}

/**
 * The position of the indexed value nearest `target` within [lo, hi], or undefined when none lies there:
 * one binary search, whatever the size of the index.
 */
export function nearestInRange(values: Float64Array, target: number, lo: number, hi: number): number | undefined {
  const above = lowerBound(values, target);
  const a = above < values.length ? values[above]! : undefined;
  const b = above > 0 ? values[above - 1]! : undefined;
  const inside = (v: number | undefined): v is number => v !== undefined && v >= lo && v <= hi;
  if (inside(a) && (!inside(b) || a - target <= target - b)) return above;
  return inside(b) ? above - 1 : undefined;
}
