import { codeRanges, inRanges } from './code-ranges.js';
import type { Figure } from './figure.js';
import {
  besideMonth,
  isDigit,
  isLetter,
  isListNumber,
  isWordChar,
  labelBefore,
  TIME_OF_DAY,
  wordAfter,
} from './figure-context.js';
import {
  CORE,
  CURRENCY,
  E_EXPONENT,
  exponentValue,
  isMinus,
  PERCENT,
  stickyAt,
  SUFFIX,
  suffixPower,
  TIMES_TEN,
} from './number-syntax.js';

/** Words after a percentage that make it a confidence level ("95% CI"). */
const CONFIDENCE = new Set(['ci', 'confidence', 'credible']);
/** Longer digit runs are ids or data dumps, not stated figures (and exceed a double's precision anyway). */
const MAX_INT_DIGITS = 18;
/** Letters read after a number as its unit ("ms", "GB"); a longer run is a word glued to an id. */
const MAX_UNIT = 24;
const SEPARATORS = /[,'\u2019 \u00a0\u202f\u2009]/g;

/**
 * The figures an answer states, in order. What counts as a claim: integers, decimals, percentages, grouped
 * thousands ("1,234,567", "1 234 567", "1'234"), currency ("$1,234.50", "€12", "£3.4k"), scale suffixes
 * ("3.4M" = 3,400,000 stated to the hundred thousand), negatives ("-12", "−12"), scientific notation
 * ("1.2e-5", "1.2×10^-5") and numbers in Markdown tables.
 *
 * Not claims (refused): numbers in code spans, fenced blocks and links; years (bare 1900–2100, "1990s");
 * dates and times ("2024-05-01", "12/05/2024", "May 1", "09:30", "9am"); list numbering ("1." at a line's
 * start); labels and versions ("Step 2", "line 14", "run 2", "Python 3.13", "v2.2.1", "1.2.3"); ids and
 * hashes ("abc123", "#4521", "4bb3141", UUIDs); ordinals ("1st"); fractions and ratios ("3/4", "3:1");
 * bounds after a comparison ("p < 0.05") and confidence levels ("95% CI");
 * and bare integers 0–10 ("3 columns", "2 runs"): structural counts that no output prints, which would
 * make the warning cry wolf. A small integer with a sign, decimals, currency, percent or an attached unit
 * ("3x", "5ms") is a claim.
 */
export function extractFigures(answer: string): Figure[] {
  const code = codeRanges(answer);
  const figures: Figure[] = [];
  let rangeAt = -1;
  for (const m of answer.matchAll(CORE)) {
    // The digits of a figure's exponent ("×10^-5") are part of it, not figures of their own.
    if (inRanges(code, m.index) || m.index < (figures.at(-1)?.end ?? 0)) continue;
    const read = readFigure(answer, m.index, m[0], rangeAt);
    if (!read) continue;
    figures.push(read.figure);
    if (read.rangeAt !== undefined) rangeAt = read.rangeAt;
  }
  return figures;
}

interface Read {
  figure: Figure;
  /** Offset of the "-" after it when a range's second number follows ("10-12"). */
  rangeAt?: number;
}

/** Reads the figure whose digits `core` stand at `at`, or undefined when they are not a claim. */
function readFigure(text: string, at: number, core: string, rangeAt: number): Read | undefined {
  const prev = text[at - 1];
  const secondOfRange = prev === '-' && rangeAt === at - 1;
  let start = at;
  let digits = core;
  if (prev === '.' && !core.includes('.') && !isWordChar(text[at - 2])) {
    start = at - 1; // ".5"
    digits = `0.${core}`;
  } else if (isWordChar(prev) || prev === '.' || prev === '#' || prev === '@') return undefined;
  if (!secondOfRange && (prev === '/' || isMinus(prev)) && isWordChar(text[at - 2])) return undefined;
  if (prev === ':' && isDigit(text[at - 2])) return undefined;

  let currency: string | undefined;
  let sign = '';
  for (let pass = 0; pass < 2 && !secondOfRange; pass++) {
    const c = text[start - 1];
    if (currency === undefined && c !== undefined && CURRENCY.has(c)) [currency, start] = [c, start - 1];
    else if (currency === undefined && c === ' ' && CURRENCY.has(text[start - 2] ?? ''))
      [currency, start] = [text[start - 2], start - 2];
    else if (!sign && (isMinus(c) || c === '+') && !isWordChar(text[start - 2])) [sign, start] = [c!, start - 1];
  }

  if (isBound(text, start)) return undefined;

  let p = at + core.length;
  let exponent = 0;
  const e = stickyAt(E_EXPONENT, text, p) ?? stickyAt(TIMES_TEN, text, p);
  if (e) {
    exponent = exponentValue(e[1] ?? e[2]!);
    p += e[0].length;
  }
  const scientific = e !== null;
  let range: number | undefined;
  const next = text[p];
  if (next === '.' && isDigit(text[p + 1])) return undefined; // 1.2.3, 192.168.0.1
  if ((next === '/' || next === ':' || isMinus(next)) && isWordChar(text[p + 1])) {
    const joined = next === '-' && !scientific ? hyphenated(text, p + 1) : 'refuse';
    if (joined === 'refuse') return undefined;
    if (joined === 'range') range = p;
  }

  let power = 0;
  const s = scientific ? null : stickyAt(SUFFIX, text, p);
  const suffix = s?.[1] ?? s?.[2];
  if (s && suffix && (suffix !== 'm' || currency)) {
    power = suffixPower(suffix);
    p += s[0].length;
  }
  const pc = stickyAt(PERCENT, text, p);
  if (pc) p += pc[0].length;
  const end = p;
  let unit = '';
  if (isLetter(text[p]) && !pc) {
    let q = p;
    while (q < text.length && q - p <= MAX_UNIT && isLetter(text[q])) q++;
    if (isWordChar(text[q]) || scientific || power) return undefined; // "3f2a9c", "3e8a": ids and hashes
    unit = text.slice(p, q);
  }

  const plain = digits.replace(SEPARATORS, '');
  const [whole = '', fraction = ''] = plain.split('.');
  if (whole.length > MAX_INT_DIGITS) return undefined;
  const integer = fraction === '' && !scientific && !power;
  const n = Number(whole);
  const decorated = sign !== '' || currency !== undefined || pc !== null;
  const bare = integer && !decorated && plain.length === digits.length;
  if (bare && n >= 1900 && n <= 2100 && (unit === '' || unit === 's')) return undefined; // a year, "1990s"
  if (bare && unit === '' && n <= 10) return undefined; // a structural count
  if (integer && /^(?:st|nd|rd|th)$/i.test(unit)) return undefined; // 1st, 2nd
  if (integer && !decorated && n >= 1 && n <= 12 && stickyAt(TIME_OF_DAY, text, at + core.length)) return undefined;
  if (integer && !decorated && n <= 31 && besideMonth(text, start, end)) return undefined;
  if (integer && !decorated && isListNumber(text, start, at + core.length)) return undefined;
  if (!pc && currency === undefined && !power && labelBefore(text, start)) return undefined;
  if (pc && CONFIDENCE.has(wordAfter(text, end))) return undefined; // "95% CI": a level chosen, not a result

  const scale = exponent + power;
  const negative = isMinus(sign) ? '-' : '';
  const value = Number(`${negative}${whole}.${fraction || '0'}e${scale}`);
  if (!Number.isFinite(value)) return undefined;
  const figure: Figure = {
    start,
    end,
    text: text.slice(start, end),
    value,
    decimals: fraction.length - scale,
    percent: pc !== null,
  };
  if (scientific || power) figure.significantDigits = (whole + fraction).replace(/^0+/, '').length || 1;
  if (currency !== undefined) figure.currency = currency;
  if (power) figure.mantissa = { value: Number(`${negative}${whole}.${fraction || '0'}`), decimals: fraction.length };
  return range === undefined ? { figure } : { figure, rangeAt: range };
}

/**
 * Whether the number at `start` is a bound after a comparison ("p < 0.05", "≥ 1e-10"): a threshold the
 * answer chose, not a value a run printed. A ">" opening a line is a Markdown quote, not a comparison.
 */
function isBound(text: string, start: number): boolean {
  const at = text[start - 1] === ' ' ? start - 2 : start - 1;
  const c = text[at];
  if (c === '<' || c === '≤' || c === '≥') return true;
  if (c !== '>') return false;
  for (let i = at - 1; i >= 0 && text[i] !== '\n'; i--) if (text[i] !== ' ' && text[i] !== '>') return true;
  return false;
}

/**
 * What follows a number's "-": a range's second number ("10-12"), a compound word ("12-month"), or a
 * joined token whose numbers are not claims (dates "2024-05-01", UUIDs, "19-a1").
 */
function hyphenated(text: string, from: number): 'range' | 'compound' | 'refuse' {
  let q = from;
  while (q < text.length && q - from <= MAX_UNIT && (isWordChar(text[q]) || text[q] === '.')) q++;
  if (text[q - 1] === '.') q--; // a sentence's full stop
  const part = text.slice(from, q);
  const more = (text[q] === '-' || text[q] === '/' || text[q] === ':') && isWordChar(text[q + 1]);
  if (more || q - from > MAX_UNIT) return 'refuse';
  if (/^\d+(?:\.\d+)?$/.test(part)) return 'range';
  return /^\p{L}+$/u.test(part) ? 'compound' : 'refuse';
}
