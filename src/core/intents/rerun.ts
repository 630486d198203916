import { rerunInFreshContainer, rerunReply } from '../rerun-notebook.js';
import { withNotes } from '../job-turn.js';
import { sourceScopeOf } from '../source-scope.js';
import type { IntentHandler } from './handler.js';

/**
 * What a `rerun` schedule fires: the thread's notebook again in a fresh container, as its creator's own code, each
 * recorded query asked again in the creator's scope.
 */
export const rerun: IntentHandler<'rerun'> = async (turn) => {
  // Run time only, and never recorded in the export again.
  const budget = await turn.budget(['runMs']);
  const { sandbox, store, interpreter } = turn.services;
  const { threadKey, signal, onProgress } = turn;
  const scope = sourceScopeOf(turn.message);
  const { turn: ran, notes } = await rerunInFreshContainer({
    sandbox,
    store,
    threadKey,
    restore: () => turn.restore(),
    run: (cell) => {
      const options = { signal, onProgress, ...(budget ? { budget } : {}) };
      if (!('query' in cell)) return interpreter.runDirect({ threadKey, ...cell }, options);
      // Asked again as the one who re-runs (a schedule's creator): their access to the source is checked again.
      const { source, sql, name, file } = cell.query;
      const fence = { source, sql, name };
      return interpreter.queryDirect({ threadKey, fence, ...(file ? { file } : {}) }, { ...options, scope });
    },
  });
  notes.push(...(budget?.notices ?? []));
  turn.budgetSpent = ran.outcome === 'budget';
  return rerunReply(ran, withNotes(notes, await turn.toReply(ran)));
};
