/**
 * What a model did during a turn that Threadlab noticed and handled (issue 37): real models loop, call their own
 * tool names, put raw code where JSON belongs, narrate instead of acting, go silent, and outgrow small context
 * windows. The loop records each kind once per turn, in the order first seen; metrics count them by model
 * (`threadlab_model_behaviour_total`) and `threadlab eval` reads its failure classes from them.
 */
export const MODEL_BEHAVIOURS = [
  /** The same code failed with the same error twice in a row: the model was told it repeated itself. */
  'repeated_failure',
  /** A third identical failure ended the turn with a summary, before the round limit. */
  'loop_stopped',
  /** A call to a tool name the model was trained on (`python`, `code_interpreter`, `bash`…) ran as run_code. */
  'tool_renamed',
  /** A call whose arguments were the source itself (or used `source`, `script`, `command` keys) ran as the code. */
  'raw_arguments',
  /** A call to a tool that does not exist and could not be mapped: the model was told the real tool. */
  'unknown_tool',
  /** A reply that only announced work (no call, no code): the model was nudged once. */
  'narration',
  /** After the nudge the model still only announced work: its words were posted as the answer. */
  'narration_posted',
  /** The model ended with no text: the last run's result was shown with a line saying so. */
  'empty_answer',
  /** The model refused (a refusal field, or a refusal the server reported). */
  'refusal',
  /** The conversation was shortened to fit the model's context window (before sending, or after a refusal). */
  'context_shortened',
  /** The server refused the request as too long even after it was shortened. */
  'context_refused',
] as const;

export type ModelBehaviour = (typeof MODEL_BEHAVIOURS)[number];

/** Records each behaviour once, in the order first seen. */
export class BehaviourLog {
  private readonly seen: ModelBehaviour[] = [];

  note(kind: ModelBehaviour): void {
    if (!this.seen.includes(kind)) this.seen.push(kind);
  }

  has(kind: ModelBehaviour): boolean {
    return this.seen.includes(kind);
  }

  list(): ModelBehaviour[] {
    return [...this.seen];
  }
}
