import { rerunInFreshContainer, rerunReply } from '../rerun-notebook.js';
import { withNotes } from '../job-turn.js';
import type { IntentHandler } from './handler.js';

/** What a `rerun` schedule fires: the thread's notebook again in a fresh container, as its creator's own code. */
export const rerun: IntentHandler<'rerun'> = async (turn) => {
  // Run time only, and never recorded in the export again.
  const budget = await turn.budget(['runMs']);
  const { sandbox, store, interpreter } = turn.services;
  const { threadKey, signal, onProgress } = turn;
  const { turn: ran, notes } = await rerunInFreshContainer({
    sandbox,
    store,
    threadKey,
    restore: () => turn.restore(),
    run: (cell) => interpreter.runDirect({ threadKey, ...cell }, { signal, onProgress, ...(budget ? { budget } : {}) }),
  });
  notes.push(...(budget?.notices ?? []));
  turn.budgetSpent = ran.outcome === 'budget';
  return rerunReply(ran, withNotes(notes, await turn.toReply(ran)));
};
