import { withNotes } from '../job-turn.js';
import type { IntentHandler } from './handler.js';

/** Code the user sent, run as is: a run command, or a message that is one fenced block. */
export const run: IntentHandler<'run'> = async (turn, intent) => {
  // Code the user sent spends run time only: a spent token budget does not stop it.
  const budget = await turn.budget(['runMs']);
  const notes = await turn.restore();
  notes.push(...(await turn.upload()).problems);
  const { language, code } = intent;
  const ran = await turn.services.interpreter.runDirect(
    { threadKey: turn.threadKey, language, code },
    { signal: turn.signal, onProgress: turn.onProgress, ...(budget ? { budget } : {}) },
  );
  notes.push(...(budget?.notices ?? []));
  notes.push(...(await turn.recordExport({ runs: ran.runs })));
  return withNotes(notes, await turn.toReply(ran));
};
