/**
 * What a task's answer must be, how the question asks for it, and the checker: the model ends its reply
 * with a line `ANSWER: …`, which is read leniently (markdown, thousands separators, units and case do
 * not matter) but compared exactly, within the precision the question states.
 */
export type Expected =
  /** A number; `decimals` is the precision asked for (0 with an integer value: an exact count). */
  | { kind: 'number'; value: number; decimals: number }
  /** A name as it appears in the data; case and surrounding quotes do not matter. */
  | { kind: 'text'; value: string }
  /** A calendar date, `YYYY-MM-DD`. */
  | { kind: 'date'; value: string }
  | { kind: 'list'; values: string[]; ordered: boolean }
  /** Numbers in a stated order. */
  | { kind: 'numbers'; values: number[]; decimals: number }
  /** A number per name. */
  | { kind: 'map'; values: Record<string, number>; decimals: number };

export interface Verdict {
  correct: boolean;
  /** What the reply gave as its answer (its `ANSWER:` line), when it had one. */
  given?: string;
  /** Why a wrong answer is wrong. */
  reason?: string;
}

const ANSWER_LINE = /^[\s>*_#-]*answer[*_\s]*[:：][*_\s]*(.+?)\s*$/gim;
const MAX_GIVEN_CHARS = 200;

/** The last `ANSWER: …` line of a reply, without its label. */
export function answerLine(reply: string): string | undefined {
  const found = [...reply.matchAll(ANSWER_LINE)];
  return found.at(-1)?.[1];
}

function cleanText(text: string): string {
  return text
    .replace(/[*`"'“”‘’_]/g, '')
    .replace(/\s+/g, ' ')
    .replace(/[.\s]+$/, '')
    .trim()
    .toLowerCase();
}

/** The first number in `text`: `$1,234.50`, `−3.2`, `12.5 %` and `**42**` all read as numbers. */
export function parseNumber(text: string): number | undefined {
  const plain = text.replace(/[−–]/g, '-').replace(/(\d)[,\u00a0\u202f](?=\d{3}\b)/g, '$1');
  const match = /-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/i.exec(plain);
  return match ? Number(match[0]) : undefined;
}

function tolerance(decimals: number): number {
  return 0.5 * 10 ** -decimals + 1e-9;
}

/** Whether `given` is `value` within the precision asked for: exact for a whole-number count. */
export function numberMatches(given: number | undefined, value: number, decimals: number): boolean {
  if (given === undefined) return false;
  if (decimals === 0 && Number.isInteger(value)) return given === value;
  return Math.abs(given - value) <= tolerance(decimals) * (1 + 1e-12);
}

function splitItems(text: string): string[] {
  return text
    .replace(/^\s*[[(]|[\])]\s*$/g, '')
    .split(/\s*[;\n]\s*|,\s+|\s*,(?=\D)/)
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

/** Name → number from `{"East": 12}` or `East=12, North: 14`. */
function parsePairs(text: string): Map<string, number> {
  const pairs = new Map<string, number>();
  const json = /\{[\s\S]*\}/.exec(text)?.[0];
  if (json) {
    try {
      for (const [k, v] of Object.entries(JSON.parse(json) as Record<string, unknown>)) {
        const n = typeof v === 'number' ? v : parseNumber(String(v));
        if (n !== undefined) pairs.set(cleanText(k), n);
      }
      return pairs;
    } catch {
      // Not JSON after all: read it as name=value pairs.
    }
  }
  for (const m of text.matchAll(/([\p{L}][\p{L}\d .&/-]*?)\s*[:=]\s*(-?[\d.,\u00a0]*\d)/gu))
    pairs.set(cleanText(m[1]!), parseNumber(m[2]!)!);
  return pairs;
}

function matches(expected: Expected, given: string): boolean {
  switch (expected.kind) {
    case 'number':
      return numberMatches(parseNumber(given), expected.value, expected.decimals);
    case 'text':
      return cleanText(given) === cleanText(expected.value);
    case 'date':
      return /\d{4}-\d{2}-\d{2}/.exec(given)?.[0] === expected.value;
    case 'list': {
      const items = splitItems(given).map(cleanText);
      const want = expected.values.map(cleanText);
      if (!expected.ordered) {
        items.sort();
        want.sort();
      }
      return items.length === want.length && items.every((item, i) => item === want[i]);
    }
    case 'numbers': {
      const items = splitItems(given).map(parseNumber);
      return (
        items.length === expected.values.length &&
        items.every((n, i) => numberMatches(n, expected.values[i]!, expected.decimals))
      );
    }
    case 'map': {
      const pairs = parsePairs(given);
      const want = Object.entries(expected.values);
      return (
        pairs.size === want.length &&
        want.every(([k, v]) => numberMatches(pairs.get(cleanText(k)), v, expected.decimals))
      );
    }
  }
}

/** The right answer, written as the question asks for it. */
export function canonicalAnswer(expected: Expected): string {
  switch (expected.kind) {
    case 'number':
      return expected.value.toFixed(expected.decimals);
    case 'text':
    case 'date':
      return expected.value;
    case 'list':
      return expected.values.join(', ');
    case 'numbers':
      return expected.values.map((v) => v.toFixed(expected.decimals)).join(', ');
    case 'map':
      return Object.entries(expected.values)
        .map(([k, v]) => `${k}=${v.toFixed(expected.decimals)}`)
        .join(', ');
  }
}

function decimalsText(decimals: number): string {
  return decimals === 0 ? 'a whole number' : `rounded to ${decimals} decimal place${decimals === 1 ? '' : 's'}`;
}

/** How the question asks for the answer, appended to every question. */
export function formatHint(expected: Expected): string {
  switch (expected.kind) {
    case 'number':
      return `the number alone, ${decimalsText(expected.decimals)}, without units or thousands separators`;
    case 'text':
      return 'the value alone, spelled as in the data';
    case 'date':
      return 'the date as YYYY-MM-DD';
    case 'list':
      return `the values separated by ", "${expected.ordered ? ', in the order asked for' : ''}, spelled as in the data`;
    case 'numbers':
      return `the numbers separated by ", ", in the order asked for, each ${decimalsText(expected.decimals)}, without thousands separators`;
    case 'map':
      return `name=value pairs separated by ", " (for example A=1, B=2), each value ${decimalsText(expected.decimals)}`;
  }
}

/** Checks a reply against the expected answer. */
export function checkAnswer(expected: Expected, reply: string): Verdict {
  const line = answerLine(reply);
  if (line === undefined) return { correct: false, reason: 'no ANSWER line' };
  const given = line.length > MAX_GIVEN_CHARS ? `${line.slice(0, MAX_GIVEN_CHARS)}…` : line;
  if (matches(expected, line)) return { correct: true, given };
  return { correct: false, given, reason: `expected ${canonicalAnswer(expected)}` };
}
