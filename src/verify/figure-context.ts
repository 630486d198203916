/**
 * What the words around a number say about it: the refusals that depend on context rather than on the
 * number's own characters (a label before it, a month beside it, list numbering at a line's start).
 */

/** A letter, digit or underscore: what identifiers, hashes and versions are made of. */
export const isWordChar = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}_]/u.test(c);
export const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
export const isLetter = (c: string | undefined): boolean => c !== undefined && /\p{L}/u.test(c);

/**
 * Words after which a number names something rather than states a quantity: a step, a section, a line, a
 * run ("run 2"), or a version ("Python 3.13", "version 2.1"). Lowercase.
 */
const LABELS = new Set(
  (
    'step steps part chapter section sections figure fig table tables item items phase stage option question ' +
    'rule issue pr run runs attempt cell line lines page pages row rows column columns col exercise example ' +
    'case test chart plot day week top level tier number no nr vol group cluster id ' +
    'version versions release v python py node nodejs numpy pandas scipy matplotlib sklearn polars java go ' +
    'ruby php perl rust ubuntu debian fedora centos windows macos ios android postgres postgresql mysql redis ' +
    'sqlite typescript javascript ecmascript es html css http tls ssl ipv gpt unicode utf'
  ).split(' '),
);

/** Abbreviations that end in a dot before a number ("No. 5", "Fig. 3"); any other word before ". 5" ends a sentence. */
const ABBREVIATIONS = new Set(['no', 'nr', 'fig', 'vol', 'ch', 'sec', 'p', 'pp', 'v']);

const MONTHS = new Set(
  (
    'january february march april may june july august september october november december ' +
    'jan feb mar apr jun jul aug sep sept oct nov dec'
  ).split(' '),
);

/** Longest word looked at around a number: context words are short, and a bound keeps long lines cheap. */
const MAX_WORD = 16;
/** Longest part read after a number's "-": a longer one is an id, not a compound word or a range's end. */
const MAX_JOINED = 24;

/**
 * The word just before `at` (across at most two spaces, and a "." when it ends an abbreviation such as
 * "No."), lowercase; '' when none.
 */
export function wordBefore(text: string, at: number): string {
  let i = at;
  for (let n = 0; n < 2 && (text[i - 1] === ' ' || text[i - 1] === '\u00a0'); n++) i--;
  const dotted = text[i - 1] === '.';
  if (i === at && !dotted) return '';
  if (dotted) i--;
  let j = i;
  while (j > 0 && i - j < MAX_WORD && isLetter(text[j - 1])) j--;
  const word = isWordChar(text[j - 1]) ? '' : text.slice(j, i).toLowerCase();
  return dotted && !ABBREVIATIONS.has(word) ? '' : word;
}

/** The word just after `at` (across at most two spaces and an "of"), lowercase; '' when none. */
export function wordAfter(text: string, at: number): string {
  let i = at;
  if (text[i] === ',') i++;
  while (i < at + 3 && (text[i] === ' ' || text[i] === '\u00a0')) i++;
  if (i === at) return '';
  let j = i;
  while (j < text.length && j - i < MAX_WORD && isLetter(text[j])) j++;
  const word = text.slice(i, j).toLowerCase();
  return word === 'of' ? wordAfter(text, j) : word;
}

/** Whether the word before `at` is a label ("Step 2", "Python 3.13", "line 14"). */
export const labelBefore = (text: string, at: number): boolean => LABELS.has(wordBefore(text, at));

/** Whether a month name stands beside the number ("May 1", "1 May", "1 of May", "March 3, 2024"). */
export const besideMonth = (text: string, start: number, end: number): boolean =>
  MONTHS.has(wordBefore(text, start)) || MONTHS.has(wordAfter(text, end));

/**
 * Whether a number at `start`–`end` numbers a list item: only spaces (or a quote's ">") before it on its
 * line, and "." or ")" then a space after it ("1. Load", "  2) Clean").
 */
export function isListNumber(text: string, start: number, end: number): boolean {
  const after = text[end];
  if ((after !== '.' && after !== ')') || !(end + 1 >= text.length || /\s/.test(text[end + 1]!))) return false;
  for (let i = start - 1; i >= 0; i--) {
    const c = text[i]!;
    if (c === '\n') return true;
    if (c !== ' ' && c !== '\t' && c !== '>') return false;
  }
  return true;
}

/** "9am", "9 pm", "10 a.m.": a time of day. */
export const TIME_OF_DAY = /\s?(?:am|pm|a\.m\.|p\.m\.)(?!\p{L})/iuy;

/**
 * Whether the number at `start` is a bound after a comparison ("p < 0.05", "≥ 1e-10"): a threshold the
 * answer chose, not a value a run printed. A ">" opening a line is a Markdown quote, not a comparison.
 */
export function isBound(text: string, start: number): boolean {
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
export function hyphenated(text: string, from: number): 'range' | 'compound' | 'refuse' {
  let q = from;
  while (q < text.length && q - from <= MAX_JOINED && (isWordChar(text[q]) || text[q] === '.')) q++;
  if (text[q - 1] === '.') q--; // a sentence's full stop
  const part = text.slice(from, q);
  const more = (text[q] === '-' || text[q] === '/' || text[q] === ':') && isWordChar(text[q + 1]);
  if (more || q - from > MAX_JOINED) return 'refuse';
  if (/^\d+(?:\.\d+)?$/.test(part)) return 'range';
  return /^\p{L}+$/u.test(part) ? 'compound' : 'refuse';
}
