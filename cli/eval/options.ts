import { DEFAULT_INLINE_CHARS } from './no-code-mode.js';
import { MODES, type Mode } from './result.js';
import { EVAL_TASKS } from './tasks/index.js';
import { CATEGORIES, type EvalTask } from './task.js';

/** Most task runs at once: each run with code holds a sandbox container. */
export const MAX_CONCURRENCY = 16;
/** Task runs at once. */
export const DEFAULT_CONCURRENCY = 2;

/** `threadlab eval`'s options, checked. */
export interface EvalOptions {
  tasks: EvalTask[];
  modes: Mode[];
  concurrency: number;
  /** Limit of one task's turn; undefined: THREADLAB_LLM_TURN_TIMEOUT_MS. */
  timeoutMs: number | undefined;
  inlineChars: number;
}

/** The options as parseArgs gives them. */
export interface RawEvalOptions {
  tasks?: string[];
  category?: string[];
  mode?: string;
  concurrency?: string;
  timeout?: string;
  'inline-chars'?: string;
}

function listOf(values: string[] | undefined): string[] {
  return (values ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}

/** The tasks `--tasks` and `--category` pick, or what is wrong with them. */
function pickTasks(ids: string[], categories: string[], problems: string[]): EvalTask[] {
  const unknownIds = ids.filter((id) => !EVAL_TASKS.some((t) => t.id === id));
  if (unknownIds.length > 0) problems.push(`--tasks: no task ${unknownIds.join(', ')}. Run \`threadlab eval --list\`.`);
  const unknown = categories.filter((c) => !(CATEGORIES as readonly string[]).includes(c));
  if (unknown.length > 0)
    problems.push(`--category: no category ${unknown.join(', ')}; expected ${CATEGORIES.join(', ')}.`);
  const picked = EVAL_TASKS.filter(
    (t) => (ids.length === 0 || ids.includes(t.id)) && (categories.length === 0 || categories.includes(t.category)),
  );
  if (picked.length === 0 && problems.length === 0) problems.push('--tasks and --category together pick no task.');
  return picked;
}

function wholeNumber(
  text: string | undefined,
  option: string,
  range: { min: number; max: number; default: number },
  problems: string[],
): number {
  if (text === undefined) return range.default;
  const n = Number(text);
  if (Number.isInteger(n) && n >= range.min && n <= range.max) return n;
  problems.push(`${option}: expected a whole number from ${range.min} to ${range.max}, got "${text}".`);
  return range.default;
}

/** Checks the options; every problem is reported at once, each naming its option. */
export function readEvalOptions(raw: RawEvalOptions): EvalOptions | { problems: string[] } {
  const problems: string[] = [];
  const tasks = pickTasks(listOf(raw.tasks), listOf(raw.category), problems);
  const mode = raw.mode ?? 'both';
  const modes = mode === 'both' ? [...MODES] : MODES.filter((m) => m === mode);
  if (modes.length === 0) problems.push(`--mode: expected both, code or no-code, got "${mode}".`);
  const concurrency = wholeNumber(
    raw.concurrency,
    '--concurrency',
    { min: 1, max: MAX_CONCURRENCY, default: DEFAULT_CONCURRENCY },
    problems,
  );
  const inlineChars = wholeNumber(
    raw['inline-chars'],
    '--inline-chars',
    { min: 1000, max: 10_000_000, default: DEFAULT_INLINE_CHARS },
    problems,
  );
  const seconds = raw.timeout === undefined ? undefined : Number(raw.timeout);
  if (seconds !== undefined && !(Number.isFinite(seconds) && seconds >= 1))
    problems.push(`--timeout: expected seconds (at least 1), got "${raw.timeout}".`);
  if (problems.length > 0) return { problems };
  return {
    tasks,
    modes,
    concurrency,
    timeoutMs: seconds === undefined ? undefined : Math.round(seconds * 1000),
    inlineChars,
  };
}
