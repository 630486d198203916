import type { CodeCell } from '../domain/code-cells.js';
import type { ExecutionStatus } from '../domain/execution.js';
import type { ProgressEvent } from '../domain/progress-event.js';
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
  const options: TurnOptions = {
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    ...(o.budget ? { budget: o.budget } : {}),
  };
  const ran = await runInOrder(o.cells, (cell) =>
    interpreter.runDirect({ threadKey: o.threadKey, ...cell, foreign: o.foreign }, options),
  );
  const notes: string[] = [];
  const { stop } = ran;
  if (stop && stop.index < o.cells.length - 1) {
    const how =
      stop.status === undefined ? 'was stopped' : `ended with ${stop.status === 'error' ? 'an error' : stop.status}`;
    notes.push(notRun(stop.index + 1, o.cells.length, how));
  }
  return {
    turn: {
      outcome: ran.outcome,
      text: ran.text,
      runs: ran.runs,
      usage: { promptTokens: 0, completionTokens: 0 },
      durationMs: Date.now() - startedMs,
      direct: true,
    },
    notes,
  };
}

/** What running cells in order did, and where it stopped when it stopped early. */
export interface InOrder {
  runs: TurnRun[];
  outcome: TurnResult['outcome'];
  /** The stopping turn's text (a stop, a budget's refusal), or empty. */
  text: string;
  /** The cell that ended the rest: its `status` when its run did not end `ok`, none when the turn itself ended. */
  stop?: { index: number; status?: ExecutionStatus };
}

/**
 * Runs cells one at a time through `run`, as a notebook's "run all": the first that is stopped or refused (its
 * turn's outcome is not `answer`) or whose run does not end `ok` ends the rest.
 */
export async function runInOrder<Cell = CodeCell>(
  cells: readonly Cell[],
  run: (cell: Cell) => Promise<TurnResult>,
): Promise<InOrder> {
  const runs: TurnRun[] = [];
  for (const [index, cell] of cells.entries()) {
    const turn = await run(cell);
    runs.push(...turn.runs);
    if (turn.outcome !== 'answer') return { runs, outcome: turn.outcome, text: turn.text, stop: { index } };
    const failed = turn.runs.find((r) => r.result.status !== 'ok');
    if (failed) return { runs, outcome: 'answer', text: '', stop: { index, status: failed.result.status } };
  }
  return { runs, outcome: 'answer', text: '' };
}

function notRun(cell: number, of: number, how: string): string {
  const rest = of - cell;
  return `_Cell ${cell} of ${of} ${how}, so the ${rest} after it did not run._`;
}
