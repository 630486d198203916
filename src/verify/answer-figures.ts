import { codeRanges, inRanges } from './code-ranges.js';
import type { Figure } from './figure.js';
import {
  besideMonth,
  hyphenated,
  isBound,
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

/** What stands before a number's digits: its sign and currency, and where the figure starts. */
interface Left {
  start: number;
  /** The digits as read: ".5" reads as "0.5". */
  digits: string;
  sign: string;
  currency?: string;
}

/** What follows a number's digits: exponent, scale suffix, percent, unit, and where the figure ends. */
interface Right {
  end: number;
  exponent: number;
  scientific: boolean;
  /** The scale suffix's power of ten ("M" → 6), 0 without one. */
  power: number;
  percent: boolean;
  /** Letters glued after it ("ms", "x", "st"). */
  unit: string;
  rangeAt?: number;
}

/** Reads the figure whose digits `core` stand at `at`, or undefined when they are not a claim. */
function readFigure(text: string, at: number, core: string, rangeAt: number): Read | undefined {
  const left = readLeft(text, at, core, rangeAt);
  const right = left && readRight(text, at + core.length, left.currency !== undefined);
  if (!left || !right) return undefined;
  const plain = left.digits.replace(SEPARATORS, '');
  const [whole = '', fraction = ''] = plain.split('.');
  if (whole.length > MAX_INT_DIGITS || notAClaim(text, { at, core, left, right, whole, fraction })) return undefined;
  const scale = right.exponent + right.power;
  const negative = isMinus(left.sign) ? '-' : '';
  const value = Number(`${negative}${whole}.${fraction || '0'}e${scale}`);
  if (!Number.isFinite(value)) return undefined;
  const figure: Figure = {
    start: left.start,
    end: right.end,
    text: text.slice(left.start, right.end),
    value,
    decimals: fraction.length - scale,
    percent: right.percent,
  };
  if (right.scientific || right.power) figure.significantDigits = (whole + fraction).replace(/^0+/, '').length || 1;
  if (left.currency !== undefined) figure.currency = left.currency;
  if (right.power)
    figure.mantissa = { value: Number(`${negative}${whole}.${fraction || '0'}`), decimals: fraction.length };
  return right.rangeAt === undefined ? { figure } : { figure, rangeAt: right.rangeAt };
}

/** The sign and currency before the digits at `at`, or undefined when the digits belong to an id or a date. */
function readLeft(text: string, at: number, core: string, rangeAt: number): Left | undefined {
  const prev = text[at - 1];
  const secondOfRange = prev === '-' && rangeAt === at - 1;
  const left: Left = { start: at, digits: core, sign: '' };
  if (prev === '.' && !core.includes('.') && !isWordChar(text[at - 2])) {
    left.start = at - 1; // ".5"
    left.digits = `0.${core}`;
  } else if (isWordChar(prev) || prev === '.' || prev === '#' || prev === '@') return undefined;
  if (!secondOfRange && (prev === '/' || isMinus(prev)) && isWordChar(text[at - 2])) return undefined;
  if (prev === ':' && isDigit(text[at - 2])) return undefined;
  for (let pass = 0; pass < 2 && !secondOfRange; pass++) {
    const c = text[left.start - 1];
    const spaced = c === ' ' ? text[left.start - 2] : undefined;
    if (left.currency === undefined && c !== undefined && CURRENCY.has(c))
      [left.currency, left.start] = [c, left.start - 1];
    else if (left.currency === undefined && spaced !== undefined && CURRENCY.has(spaced))
      [left.currency, left.start] = [spaced, left.start - 2];
    else if (!left.sign && (isMinus(c) || c === '+') && !isWordChar(text[left.start - 2]))
      [left.sign, left.start] = [c!, left.start - 1];
  }
  return isBound(text, left.start) ? undefined : left;
}

/** Exponent, joins, suffix, percent and unit after the digits ending at `from`; undefined for a refused join. */
function readRight(text: string, from: number, hasCurrency: boolean): Right | undefined {
  let p = from;
  const e = stickyAt(E_EXPONENT, text, p) ?? stickyAt(TIMES_TEN, text, p);
  if (e) p += e[0].length;
  const right: Right = {
    end: p,
    exponent: e ? exponentValue(e[1] ?? e[2]!) : 0,
    scientific: e !== null,
    power: 0,
    percent: false,
    unit: '',
  };
  const next = text[p];
  if (next === '.' && isDigit(text[p + 1])) return undefined; // 1.2.3, 192.168.0.1
  if ((next === '/' || next === ':' || isMinus(next)) && isWordChar(text[p + 1])) {
    const joined = next === '-' && !right.scientific ? hyphenated(text, p + 1) : 'refuse';
    if (joined === 'refuse') return undefined;
    if (joined === 'range') right.rangeAt = p;
  }
  const s = right.scientific ? null : stickyAt(SUFFIX, text, p);
  const suffix = s?.[1] ?? s?.[2];
  if (s && suffix && (suffix !== 'm' || hasCurrency)) {
    right.power = suffixPower(suffix);
    p += s[0].length;
  }
  const pc = stickyAt(PERCENT, text, p);
  if (pc) p += pc[0].length;
  right.percent = pc !== null;
  right.end = p;
  if (isLetter(text[p]) && !pc) {
    let q = p;
    while (q < text.length && q - p <= MAX_UNIT && isLetter(text[q])) q++;
    if (isWordChar(text[q]) || right.scientific || right.power) return undefined; // "3f2a9c", "3e8a": ids
    right.unit = text.slice(p, q);
  }
  return right;
}

/** A number read in full, for the refusals that weigh its parts against its context. */
interface Parts {
  at: number;
  core: string;
  left: Left;
  right: Right;
  whole: string;
  fraction: string;
}

/** Whether context makes the number a year, count, ordinal, time, date, list number, label or level. */
function notAClaim(text: string, { at, core, left, right, whole, fraction }: Parts): boolean {
  const integer = fraction === '' && !right.scientific && !right.power;
  const n = Number(whole);
  const decorated = left.sign !== '' || left.currency !== undefined || right.percent;
  const plain = integer && !decorated;
  const bare = plain && !/[^\d]/.test(left.digits);
  const { unit, end } = right;
  if (bare && n >= 1900 && n <= 2100 && (unit === '' || unit === 's')) return true; // a year, "1990s"
  if (bare && unit === '' && n <= 10) return true; // a structural count
  if (integer && /^(?:st|nd|rd|th)$/i.test(unit)) return true; // 1st, 2nd
  if (plain && n >= 1 && n <= 12 && stickyAt(TIME_OF_DAY, text, at + core.length)) return true;
  if (plain && n <= 31 && besideMonth(text, left.start, end)) return true;
  if (plain && isListNumber(text, left.start, at + core.length)) return true;
  if (!right.percent && left.currency === undefined && !right.power && labelBefore(text, left.start)) return true;
  return right.percent && CONFIDENCE.has(wordAfter(text, end)); // "95% CI": a level chosen, not a result
}
