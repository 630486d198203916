import { readSqlFence } from '../../interpreter/query/sql-fence.js';
import { withNotes } from '../job-turn.js';
import { sourceScopeOf } from '../source-scope.js';
import type { IntentHandler } from './handler.js';

/**
 * A message that is one sql fence, run as is (direct mode): the query runs through the bot on the source its first
 * line names; the reply is the DataFrame's preview with the CSV attached. Query time spends run time.
 */
export const query: IntentHandler<'query'> = async (turn, intent) => {
  const budget = await turn.budget(['runMs']);
  const notes = await turn.restore();
  notes.push(...(await turn.upload()).problems);
  const { interpreter } = turn.services;
  const scope = sourceScopeOf(turn.message);
  const fence = readSqlFence(intent.body, interpreter.sourceNames(scope), intent.info);
  const ran = await interpreter.queryDirect(
    { threadKey: turn.threadKey, fence },
    { signal: turn.signal, onProgress: turn.onProgress, scope, ...(budget ? { budget } : {}) },
  );
  notes.push(...(budget?.notices ?? []));
  notes.push(...(await turn.recordExport({ runs: ran.runs })));
  return withNotes(notes, await turn.toReply(ran));
};
