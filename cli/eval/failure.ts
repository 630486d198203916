import type { ErrorCode } from '../../src/domain/errors.js';
import type { ModelBehaviour } from '../../src/domain/model-behaviour.js';
import type { Mode, RunOutcome, TaskRun } from './result.js';

/**
 * How a task run failed, for `threadlab eval` to say how a model fails and not only how often (issue 37). Each
 * class names what the user of that model would meet; the report counts them per mode.
 */
export const FAILURE_CLASSES = {
  /** The same code failed the same way three times and the loop breaker ended the turn (`loop_stopped`). */
  loop: 'the same failing code, again and again',
  /** The model answered without running code a task needed, or only announced the work (`narration_posted`). */
  no_call: 'answered without running code',
  /** The model wrote no answer text (`empty_answer`, or empty content without code execution). */
  empty_answer: 'no answer text',
  /** The model refused (a refusal it wrote before running anything), or its server refused the request. */
  refused: 'the model or its server refused',
  /** The conversation did not fit the model's context window (`context_refused`, or a context-length error). */
  context: 'did not fit the context window',
  /** The model answered and the answer was checked wrong (a figure, a value, a chart). */
  wrong_answer: 'answered, checked wrong',
  /** The turn used all its model rounds or tokens (THREADLAB_LLM_MAX_ROUNDS, THREADLAB_LLM_TOKEN_BUDGET). */
  budget: 'ran out of rounds or tokens',
  /** The turn ran out of time (`--timeout`). */
  time: 'ran out of time',
  /** The model server failed after its retries (unreachable, errors, rate limits, tools unsupported). */
  server: 'the model server failed',
  /** The sandbox or the eval itself failed: no verdict on the model. */
  error: 'the sandbox or the eval failed',
} as const;

export type FailureClass = keyof typeof FAILURE_CLASSES;

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
