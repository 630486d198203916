import type { CodeCell } from './code-cells.js';
import { LANGUAGES, type Language } from './execution.js';

/**
 * What a message asks for, decided once per message (`intentOf` in the core): the bot acts on `stop`
 * when it arrives, the thread worker on the rest when the job runs. Plain data: it rides on the job.
 */
export type Intent =
  | { kind: 'stop' }
  | { kind: 'reset' }
  | { kind: 'files' }
  | { kind: 'help' }
  /** The thread as a Jupyter notebook and a requirements.txt. */
  | { kind: 'export' }
  /** Today's spend against the daily budgets of the user and the workspace. */
  | { kind: 'usage' }
  /** Code to run as is, without the model: a platform's run command, or a message that is one fenced block. */
  | { kind: 'run'; language: Language; code: string }
  /**
   * The fenced blocks of another message, run as is in order (the first that fails ends the run); `skipped` names
   * blocks in languages the sandbox does not run. No cells: the message had no code, and the answer says so.
   */
  | { kind: 'runCells'; cells: CodeCell[]; skipped: string[] }
  /**
   * An attached script (`.py`, `.R`, `.js`, `.sh`, `.ipynb`) run as is, in its language, with the message's other
   * attachments in `/mnt/data`. `attachment` is its id among the message's attachments; unset: none could be
   * chosen, and `problem` says why (no script attached, several and none named).
   */
  | { kind: 'runScript'; attachment?: string; problem?: string }
  /**
   * A message that is one sql fence (issue 38): the query runs through the bot on the data source its first line
   * names, as is. `body` is the fence's body and `info` what follows its tag (read by the sql fence grammar).
   */
  | { kind: 'query'; body: string; info: string }
  /** Anything else is for the model; `text` is empty when the message only brings files. */
  | { kind: 'ask'; text: string }
  /** A schedule command: `text` is what follows `schedule` (the core parses it when the job runs). */
  | { kind: 'schedule'; text: string }
  /** Re-run the thread's notebook (its recorded code, in order): what a `rerun` schedule fires. Never typed. */
  | { kind: 'rerun' };

const KINDS_WITHOUT_FIELDS = new Set(['stop', 'reset', 'files', 'help', 'export', 'usage', 'rerun']);

/**
 * Whether `value` is an Intent (a job's intent read back from a store is a claim): anything else is
 * dropped, and the intent is read from the message again.
 */
export function isIntent(value: unknown): value is Intent {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { kind?: unknown; language?: unknown; code?: unknown; text?: unknown };
  if (v.kind === 'ask' || v.kind === 'schedule') return typeof v.text === 'string';
  if (v.kind === 'query')
    return (
      typeof (value as { body?: unknown }).body === 'string' && typeof (value as { info?: unknown }).info === 'string'
    );
  if (v.kind === 'run') return typeof v.code === 'string' && LANGUAGES.includes(v.language as Language);
  if (v.kind === 'runCells') return isCells(value) && Array.isArray((value as { skipped?: unknown }).skipped);
  if (v.kind === 'runScript') return isOptionalString(value, 'attachment') && isOptionalString(value, 'problem');
  return typeof v.kind === 'string' && KINDS_WITHOUT_FIELDS.has(v.kind);
}

/** Whether an intent runs code as is (direct mode): the user's own, or another message's. */
export function isDirectRun(
  intent: Intent,
): intent is Extract<Intent, { kind: 'run' | 'runCells' | 'runScript' | 'query' }> {
  return intent.kind === 'run' || intent.kind === 'runCells' || intent.kind === 'runScript' || intent.kind === 'query';
}

function isCells(value: object): boolean {
  const cells = (value as { cells?: unknown }).cells;
  return (
    Array.isArray(cells) &&
    cells.every(
      (c: unknown) =>
        typeof c === 'object' &&
        c !== null &&
        typeof (c as { code?: unknown }).code === 'string' &&
        LANGUAGES.includes((c as { language?: unknown }).language as Language),
    )
  );
}

function isOptionalString(value: object, field: string): boolean {
  const v = (value as Record<string, unknown>)[field];
  return v === undefined || typeof v === 'string';
}
