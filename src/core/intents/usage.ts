import { textReply } from '../../domain/reply.js';
import type { IntentHandler } from './handler.js';

/** `usage`: today's spend of the user and the workspace against the daily budgets. */
export const usage: IntentHandler<'usage'> = async (turn) =>
  textReply(await turn.services.governance.usage(turn.message));
