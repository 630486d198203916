import { exportThread } from '../../export/index.js';
import type { IntentHandler } from './handler.js';

/** `export`: the thread as a notebook and a requirements.txt. */
export const exportNotebook: IntentHandler<'export'> = async (turn) => {
  // Its package lookup is a run in the sandbox: admitted and charged to the run-time budget like one.
  const budget = await turn.budget(['runMs']);
  const { store, sandbox } = turn.services;
  return exportThread({
    store,
    sandbox,
    threadKey: turn.threadKey,
    signal: turn.signal,
    ...(budget ? { budget } : {}),
  });
};
