import type { ExecutionResult, Language, SandboxFile } from '../domain/execution.js';
import type { ProgressListener } from '../domain/progress.js';
import type { TurnBudget } from '../ports/budget.js';
import type { ApprovalHook } from '../ports/approval.js';

/** One user message for the interpreter, after its attachments were put into the sandbox. */
export interface TurnInput {
  threadKey: string;
  text: string;
  user: { id: string; name?: string };
  /** Files this message added to `/mnt/data`. */
  uploaded: SandboxFile[];
}

export interface TurnOptions {
  /** Cancels the turn: the LLM call is aborted and a running cell is interrupted. */
  signal?: AbortSignal;
  onProgress?: ProgressListener;
  /** The daily budgets: checked between model rounds and charged with tokens and run time. */
  budget?: TurnBudget;
  /** Asked before each run of code the model wrote (THREADLAB_APPROVAL=ask); direct runs never ask. */
  approve?: ApprovalHook;
}

/** A run made during the turn, with its full result (images and artifacts are read from it). */
export interface TurnRun {
  language: Language;
  code: string;
  result: ExecutionResult;
}

/**
 * How a turn ended. `answer`: the model (or direct mode) finished; `budget`: rounds, tokens or time
 * ran out and `text` says what was done; `cancelled`: the user stopped it; `failed`: the LLM API failed
 * after retries and `text` says so; `not_configured`: natural language without an LLM.
 */
export type TurnOutcome = 'answer' | 'budget' | 'cancelled' | 'failed' | 'not_configured';

export interface TurnResult {
  outcome: TurnOutcome;
  /** Markdown for the user. In direct mode, empty: the run's output is the answer. */
  text: string;
  runs: TurnRun[];
  usage: { promptTokens: number; completionTokens: number };
  durationMs: number;
  model?: string;
  /** The model's thinking, when its server sent any; shown collapsed where a surface has room, never as the answer. */
  thinking?: string;
  /** True when the turn ran a fenced code block as is, without an LLM. */
  direct: boolean;
}
