import type { FigureCounts } from '../../src/domain/figures.js';
import type { ModelBehaviour } from '../../src/domain/model-behaviour.js';
import type { FailureClass } from './failure-class.js';
import type { Category } from './task.js';

/** `code`: the bot's real loop with the sandbox; `no-code`: the same model, the files in the prompt, no tools. */
export type Mode = 'code' | 'no-code';
export const MODES: readonly Mode[] = ['code', 'no-code'];

/**
 * How a task's turn ended: `answer` (the model answered), `budget` (rounds, tokens or time ran out),
 * `failed` (the model API failed after its retries), `error` (the sandbox or the eval itself failed).
 */
export type RunOutcome = 'answer' | 'budget' | 'cancelled' | 'failed' | 'error';

/** One task run in one mode. */
export interface TaskRun {
  taskId: string;
  category: Category;
  mode: Mode;
  correct: boolean;
  outcome: RunOutcome;
  /** The reply's `ANSWER:` line. */
  given?: string;
  /** Why it is not right (the expected answer, a missing figure, the error). */
  reason?: string;
  /** Model requests made. */
  rounds: number;
  /** Code runs made (0 without code execution). */
  runs: number;
  promptTokens: number;
  completionTokens: number;
  /** Wall-clock time of the turn, without uploading the files. */
  seconds: number;
  /** Without code execution: whether the files were cut to fit the prompt. */
  truncated?: boolean;
  /**
   * With code execution: how many of the final answer's figures were found in the runs' output, the ones that
   * were not, and whether a verification round ran (THREADLAB_VERIFY_FIGURES). Absent when it was not checked.
   */
  figures?: FigureCounts;
  /** How the run failed (cli/eval/failure.ts); absent when it was right. */
  failure?: FailureClass;
  /** What the loop noticed the model do and handled (TurnResult.behaviour), when it noticed anything. */
  behaviour?: ModelBehaviour[];
}
