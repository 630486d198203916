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
