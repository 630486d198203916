import type { ErrorCode } from '../../src/domain/errors.js';
import type { ModelBehaviour } from '../../src/domain/model-behaviour.js';
import type { Mode, RunOutcome, TaskRun } from './result.js';
import { FAILURE_CLASSES, type FailureClass } from './failure-class.js';

export { FAILURE_CLASSES, type FailureClass } from './failure-class.js';

/** The classes in the order the report lists them. */
export const FAILURE_ORDER = Object.keys(FAILURE_CLASSES) as FailureClass[];

/** What a task run's failure is read from. */
export interface FailureEvidence {
  mode: Mode;
  correct: boolean;
  outcome: RunOutcome;
  /** Code runs the turn made. */
  runs: number;
  /** What the loop noticed the model do (TurnResult.behaviour); absent on results from before it existed. */
  behaviour?: readonly ModelBehaviour[];
  /** The code of the model server's error when the turn failed on one. */
  errorCode?: ErrorCode;
  /** The error's message, or the turn's text when it stopped without an answer. */
  message?: string;
  /** A `budget` outcome that was the turn's time limit rather than its rounds or tokens. */
  timedOut?: boolean;
  /** The model's final text was empty (whitespace only). */
  emptyText?: boolean;
  /** The model's final reply was a refusal (its `refusal` field). */
  refusal?: boolean;
}

/** Words of a server's context-length refusal (vLLM, llama.cpp, OpenAI, Ollama and the proxies in between). */
const CONTEXT_WORDS =
  /context[ _-]?(length|window|size)|maximum context|max_model_len|n_ctx|prompt is too long|too many tokens|exceeds? the (model'?s? )?(maximum|context)/i;

/**
 * The class of a run that was not right, or undefined for a right one. The loop's own notes come first (they say
 * what the model did), then how the turn ended, and an answer that ran and was checked wrong last.
 */
export function failureOf(e: FailureEvidence): FailureClass | undefined {
  if (e.correct) return undefined;
  const saw = (kind: ModelBehaviour) => e.behaviour?.includes(kind) ?? false;
  if (saw('loop_stopped')) return 'loop';
  if (saw('context_refused')) return 'context';
  if (e.outcome === 'failed') {
    if (e.errorCode === 'llm_context_exceeded' || CONTEXT_WORDS.test(e.message ?? '')) return 'context';
    return e.errorCode === 'llm_refused' ? 'refused' : 'server';
  }
  if (e.outcome === 'error' || e.outcome === 'cancelled') return 'error';
  if (e.outcome === 'budget') return e.timedOut ? 'time' : 'budget';
  // An answer: what kind of answer it was.
  if (saw('empty_answer') || e.emptyText) return 'empty_answer';
  if ((saw('refusal') && e.runs === 0) || e.refusal) return 'refused';
  if (saw('narration_posted') || (e.mode === 'code' && e.runs === 0)) return 'no_call';
  return 'wrong_answer';
}

/**
 * A run's class: the one it was given when it ran, or for a result written before classes existed, the class its
 * outcome, runs, behaviour (when recorded) and reason show.
 */
export function failureOfRun(run: TaskRun): FailureClass | undefined {
  if (run.correct) return undefined;
  return (
    run.failure ??
    failureOf({
      mode: run.mode,
      correct: run.correct,
      outcome: run.outcome,
      runs: run.runs,
      ...(run.behaviour ? { behaviour: run.behaviour } : {}),
      ...(run.reason !== undefined ? { message: run.reason } : {}),
    })
  );
}

/** Each class's count over `failures`, every class present (zero when none). */
export function countFailures(failures: ReadonlyArray<FailureClass | undefined>): Record<FailureClass, number> {
  const counts = Object.fromEntries(FAILURE_ORDER.map((c) => [c, 0])) as Record<FailureClass, number>;
  for (const f of failures) if (f) counts[f] += 1;
  return counts;
}
