import { textReply } from '../../domain/reply.js';
import { resetThreadMemory } from '../../interpreter/index.js';
import type { IntentHandler } from './handler.js';

/** `reset`: the thread's variables, files and conversation memory cleared. */
export const reset: IntentHandler<'reset'> = async (turn) => {
  await turn.services.sandbox.reset(turn.threadKey);
  await resetThreadMemory(turn.services.store, turn.threadKey);
  return textReply('This thread was reset: variables, files and conversation memory are cleared.');
};
