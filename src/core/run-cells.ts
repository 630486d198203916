import type { CodeCell } from '../domain/code-cells.js';
import type { Intent } from '../domain/intent.js';
import type { ProgressEvent } from '../domain/progress.js';
import type { Interpreter } from '../interpreter/interpreter.js';
import type { TurnOptions, TurnResult, TurnRun } from '../interpreter/turn.js';

/**
 * Runs cells as is, in order, in the thread's sandbox: each a direct run (its own time limit, held against the
 * run-time budget), the first that does not end `ok` ends the rest, which is said in `notes`. `foreign`: the code
 * is another person's, and the thread's memory keeps no text of it (see `codeEntry`).
 */
export async function runCells(
  interpreter: Interpreter,
  o: {
    threadKey: string;
    cells: readonly CodeCell[];
    foreign: boolean;
    signal?: AbortSignal;
    onProgress?: (event: ProgressEvent) => void;
    budget?: TurnOptions['budget'];
  },
): Promise<{ turn: TurnResult; notes: string[] }> {
  const startedMs = Date.now();
  const runs: TurnRun[] = [];
  const notes: string[] = [];
  let outcome: TurnResult['outcome'] = 'answer';
  let text = '';
  const options: TurnOptions = {
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    ...(o.budget ? { budget: o.budget } : {}),
  };
  for (const [index, cell] of o.cells.entries()) {
    const turn = await interpreter.runDirect({ threadKey: o.threadKey, ...cell, foreign: o.foreign }, options);
    runs.push(...turn.runs);
    if (turn.outcome !== 'answer') {
      outcome = turn.outcome;
      text = turn.text;
      if (index < o.cells.length - 1) notes.push(notRun(index + 1, o.cells.length, 'was stopped'));
      break;
    }
    const status = turn.runs[0]?.result.status ?? 'ok';
    if (status !== 'ok' && index < o.cells.length - 1) {
      notes.push(notRun(index + 1, o.cells.length, `ended with ${status === 'error' ? 'an error' : status}`));
      break;
    }
  }
  return {
    turn: {
      outcome,
      text,
      runs,
      usage: { promptTokens: 0, completionTokens: 0 },
      durationMs: Date.now() - startedMs,
      direct: true,
    },
    notes,
  };
}

function notRun(cell: number, of: number, how: string): string {
  const rest = of - cell;
  return `_Cell ${cell} of ${of} ${how}, so the ${rest} after it did not run._`;
}

/** The answer to a message run with nothing to run, or too much; undefined when it may run. */
export function refusalOf(
  intent: Extract<Intent, { kind: 'runCells' | 'runScript' }>,
  maxCells: number,
): string | undefined {
  if (intent.kind === 'runScript')
    return intent.attachment === undefined ? (intent.problem ?? 'Nothing to run.') : undefined;
  if (intent.cells.length === 0) {
    const others = intent.skipped.length
      ? ` (its ${intent.skipped.length === 1 ? 'block is' : 'blocks are'} ${[...new Set(intent.skipped)].map((l) => `\`${l || 'unlabelled'}\``).join(', ')}, not a language I run)`
      : '';
    return `That message has no code block to run${others}. Code runs from fenced blocks: \`\`\`python … \`\`\` (or r, js, bash; unlabelled is python).`;
  }
  if (intent.cells.length > maxCells)
    return `That message has ${intent.cells.length} code blocks; at most ${maxCells} run from one message (THREADLAB_RUN_MAX_CELLS).`;
  return undefined;
}

/** Says which blocks of a message were not run for their language. */
export function skippedNote(skipped: readonly string[]): string[] {
  if (skipped.length === 0) return [];
  const labels = [...new Set(skipped)].map((l) => `\`${l}\``).join(', ');
  return [
    `_Skipped ${skipped.length} block${skipped.length === 1 ? '' : 's'} in a language I do not run (${labels})._`,
  ];
}
