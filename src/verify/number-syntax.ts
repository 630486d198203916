/**
 * How a number is written: the patterns of its parts, each anchored (sticky) where the scanner stands, so
 * no pattern searches and none can backtrack more than its own few characters.
 */

/**
 * A number's digits: grouped by commas, spaces (plain, no-break, narrow, thin) or apostrophes in threes, or
 * a plain run; then an optional decimal part. Each group refuses a fourth digit, so "1 2024" is 1 and 2024.
 */
export const CORE =
  /\d{1,3}(?:(?:,\d{3}(?!\d))+|(?:[ \u00a0\u202f\u2009]\d{3}(?!\d))+|(?:['\u2019]\d{3}(?!\d))+)(?:\.\d+)?|\d+(?:\.\d+)?/g;

/** "e-5", "E+06" right after the digits. */
export const E_EXPONENT = /[eE]([+\-\u2212]?\d{1,3})(?!\d)/y;

/** "×10^-5", "x 10^{-5}", "* 10**-5", "·10⁻⁵". */
export const TIMES_TEN = /\s?[×x*·]\s?10(?:(?:\^|\*\*)\{?([+\-\u2212]?\d{1,3})\}?|([⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,3}))(?!\d)/y;

const SUPERSCRIPT: Record<string, string> = {
  '⁰': '0',
  '¹': '1',
  '²': '2',
  '³': '3',
  '⁴': '4',
  '⁵': '5',
  '⁶': '6',
  '⁷': '7',
  '⁸': '8',
  '⁹': '9',
  '⁺': '+',
  '⁻': '-',
};

/** An exponent as written ("-5", "−5", "⁻⁵") as a number. */
export const exponentValue = (written: string): number =>
  Number([...written].map((c) => SUPERSCRIPT[c] ?? (c === '\u2212' ? '-' : c)).join(''));

/**
 * Scale words and letters: "3.4M", "12k", "2bn", "$3m", "1.5 million". A letter must end the word, so "5GB"
 * and "60km" are units, not suffixes. A lowercase "m" scales only after a currency ("$3m"; "3m" is metres).
 */
export const SUFFIX = /(?:\s?(thousand|million|billion|trillion)|(k|K|M|MM|mn|m|bn|B|T|tn))(?![\p{L}\p{N}_])/uy;

const SUFFIX_POWER: Record<string, number> = {
  thousand: 3,
  k: 3,
  K: 3,
  million: 6,
  M: 6,
  MM: 6,
  mn: 6,
  m: 6,
  billion: 9,
  bn: 9,
  B: 9,
  trillion: 12,
  T: 12,
  tn: 12,
};

/** The power of ten a suffix stands for ("M" → 6). */
export const suffixPower = (suffix: string): number => SUFFIX_POWER[suffix] ?? 0;

/** "%", " %", " percent", " per cent", " percentage points", "pp". */
export const PERCENT = /(?:\s?%|\s(?:percent|per cent|percentage points?)(?!\p{L})|pp(?!\p{L}))/uy;

/** Currency symbols written before a figure. */
export const CURRENCY = new Set(['$', '€', '£', '¥', '₹', '₩', '₽', '₺', '₪', '₫', '฿']);

/** Minus signs: ASCII hyphen-minus and U+2212. */
export const isMinus = (c: string | undefined): boolean => c === '-' || c === '\u2212';

/** Runs `re` (sticky) at `at`; the match or null. */
export function stickyAt(re: RegExp, text: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(text);
}
