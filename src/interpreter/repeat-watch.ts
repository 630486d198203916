import type { ExecutionResult, Language } from '../domain/execution.js';

/**
 * The loop breaker: models that meet an error often send the identical code again, round after round (reported
 * for small local models and agents alike), and every round costs the whole conversation in tokens. A failure is
 * keyed by the code with its comments and whitespace ignored and by the error; the second identical failure is
 * told to the model once, plainly, and the third ends the turn.
 */

/** What a run means for the loop: nothing new, a repeat to tell the model about, or the end of the turn. */
export type RepeatVerdict =
  { kind: 'new' } | { kind: 'repeated'; error: string; times: number } | { kind: 'stop'; error: string; times: number };

/** Identical failures that end the turn. */
export const STOP_AFTER_FAILURES = 3;
/** Longest error text kept in a key and in the texts, in characters. */
const MAX_ERROR_CHARS = 300;
/** Most distinct failures remembered in one turn (a turn has at most THREADLAB_LLM_MAX_ROUNDS rounds of calls). */
const MAX_KEYS = 256;

const COMMENT_PREFIX: Record<Language, RegExp> = {
  python: /^\s*#/,
  bash: /^\s*#(?!!)/,
  r: /^\s*#/,
  javascript: /^\s*\/\//,
};
const TRAILING_COMMENT: Record<Language, RegExp> = {
  python: /\s+#[^'"\n]*$/,
  bash: /\s+#[^'"\n]*$/,
  r: /\s+#[^'"\n]*$/,
  javascript: /\s+\/\/[^'"`\n]*$/,
};

/**
 * The code as compared: comment lines and trailing comments dropped, and every whitespace character (`print( x )` is
 * `print(x)`: code that differs only there fails the same way).
 */
export function codeKey(language: Language, code: string): string {
  return code
    .split('\n')
    .filter((line) => !COMMENT_PREFIX[language].test(line))
    .map((line) => line.replace(TRAILING_COMMENT[language], ''))
    .join('\n')
    .replace(/\s+/g, '');
}

/** The failure as the user and the model read it: the exception, or how the run ended; undefined for a success. */
export function failureOf(result: ExecutionResult): string | undefined {
  if (result.status === 'ok') return undefined;
  if (result.error) {
    const value = result.error.value.replace(/\s+/g, ' ').trim();
    const text = value ? `${result.error.name}: ${value}` : result.error.name;
    return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS - 1)}…` : text;
  }
  if (result.status === 'timeout') return 'the run timed out';
  return `the run was killed${result.killReason ? ` (${result.killReason})` : ''}`;
}

/** Counts identical failures within one turn. */
export class RepeatWatch {
  private readonly counts = new Map<string, number>();
  /** The failure that ended the turn, once one did. */
  stopped: { error: string; times: number } | undefined;

  /** Reads one run of the turn. */
  observe(run: { language: Language; code: string; result: ExecutionResult }): RepeatVerdict {
    const error = failureOf(run.result);
    if (error === undefined) return { kind: 'new' };
    // Memory addresses and object ids differ between identical failures.
    const key = `${run.language}\u0000${codeKey(run.language, run.code)}\u0000${error.replace(/0x[0-9a-f]+/gi, '0x')}`;
    const times = (this.counts.get(key) ?? 0) + 1;
    if (this.counts.size < MAX_KEYS || this.counts.has(key)) this.counts.set(key, times);
    if (times >= STOP_AFTER_FAILURES) {
      this.stopped ??= { error, times };
      return { kind: 'stop', error, times };
    }
    if (times > 1) return { kind: 'repeated', error, times };
    return { kind: 'new' };
  }
}

/** What the model is told with the second identical failure's result. */
export function repeatedFailureNote(error: string): string {
  return (
    `[Threadlab] You already ran this same code and it failed the same way (${error}). ` +
    'Running it again will fail again: change the code (check the names and values it relies on first, ' +
    'for example print the columns of a table), or answer the user with what you found.'
  );
}
