import type { TurnBudget } from '../ports/budget.js';
import type { TurnRun } from './turn.js';

/**
 * Runs code with its time limit held against the daily budgets first, so turns running at the same time count it as
 * spent. The hold is settled to the run's real duration (or the time it took, when the run threw). Without budgets
 * the run just runs; with one spent it does not run, and the refusal (which budget, when it resets) is returned.
 */
export async function heldRun(
  budget: TurnBudget | undefined,
  timeoutMs: number,
  run: (timeoutMs: number) => Promise<TurnRun>,
): Promise<TurnRun | { refused: string }> {
  if (!budget) return run(timeoutMs);
  const hold = await budget.hold({ runMs: timeoutMs });
  if ('refused' in hold) return hold;
  const startedMs = Date.now();
  let spentMs: number | undefined;
  try {
    const done = await run(timeoutMs);
    spentMs = done.result.durationMs;
    return done;
  } finally {
    await hold.settle({ runMs: spentMs ?? Date.now() - startedMs });
  }
}
