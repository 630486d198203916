import { ask } from './ask.js';
import { exportNotebook } from './export.js';
import { files } from './files.js';
import type { IntentHandler, JobIntent } from './handler.js';
import { help } from './help.js';
import { rerun } from './rerun.js';
import { reset } from './reset.js';
import { query } from './query.js';
import { run } from './run-code.js';
import { runMessage } from './run-message.js';
import { schedule } from './schedule.js';
import { usage } from './usage.js';

export type { IntentHandler, JobIntent } from './handler.js';

/**
 * Every intent a job can carry, and the handler that answers it: adding a command is its handler's file and one
 * line here (the type makes a missing line a compile error).
 */
export const INTENT_HANDLERS: { [K in JobIntent['kind']]: IntentHandler<K> } = {
  reset,
  help,
  usage,
  export: exportNotebook,
  schedule,
  rerun,
  files,
  run,
  runCells: (turn, intent) => runMessage(turn, intent),
  runScript: (turn, intent) => runMessage(turn, intent),
  query,
  ask,
};

/** Answers `intent` with its handler. */
export function answerIntent<K extends JobIntent['kind']>(
  turn: Parameters<IntentHandler<K>>[0],
  intent: Extract<JobIntent, { kind: K }>,
): ReturnType<IntentHandler<K>> {
  const handler = INTENT_HANDLERS[intent.kind] as IntentHandler<K>;
  return handler(turn, intent);
}
