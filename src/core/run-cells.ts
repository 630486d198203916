import type { CodeCell } from '../domain/code-cells.js';
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
