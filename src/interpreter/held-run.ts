import type { FilePreview } from '../domain/execution.js';
import type { TurnBudget } from '../ports/budget.js';
import type { Sandbox } from '../ports/sandbox.js';
import type { TurnRun } from './turn.js';

/**
 * Does work that runs code in the sandbox with its time limit held against the daily budgets first, so turns running
 * at the same time count it as spent, and settles the hold to what the work took (`spentMs` of its result, else the
 * wall time). Without budgets the work just runs; with one spent it does not, and the refusal (which budget, when it
 * resets) is returned instead.
 */
export async function heldWork<T>(
  budget: TurnBudget | undefined,
  timeoutMs: number,
  work: (timeoutMs: number) => Promise<T>,
  spentMs: (done: T) => number | undefined = () => undefined,
): Promise<T | { refused: string }> {
  if (!budget) return work(timeoutMs);
  const hold = await budget.hold({ runMs: timeoutMs });
  if ('refused' in hold) return hold;
  const startedMs = Date.now();
  let spent: number | undefined;
  try {
    const done = await work(timeoutMs);
    spent = spentMs(done);
    return done;
  } finally {
    await hold.settle({ runMs: spent ?? Date.now() - startedMs });
  }
}

/** A run of code, held like {@link heldWork} and settled to the run's own duration. */
export function heldRun(
  budget: TurnBudget | undefined,
  timeoutMs: number,
  run: (timeoutMs: number) => Promise<TurnRun>,
): Promise<TurnRun | { refused: string }> {
  return heldWork(budget, timeoutMs, run, (done) => done.result.durationMs);
}

/** Previews of a thread's files: they run code in the sandbox, so they are held like {@link heldWork} for their time limit. */
export function heldPreviews(
  budget: TurnBudget | undefined,
  sandbox: Pick<Sandbox, 'previewFiles'>,
  o: { threadKey: string; paths: string[]; timeoutMs: number; signal: AbortSignal | undefined },
): Promise<FilePreview[] | { refused: string }> {
  return heldWork(budget, o.timeoutMs, (timeoutMs) =>
    sandbox.previewFiles(o.threadKey, o.paths, { signal: o.signal, timeoutMs }),
  );
}
