import { textReply } from '../../domain/reply.js';
import { helpText } from '../help.js';
import type { IntentHandler } from './handler.js';

/** `help`: the commands as this platform's users type them. */
export const help: IntentHandler<'help'> = (turn) =>
  Promise.resolve(textReply(helpText(turn.profile.commandNames, turn.profile.scheduleCommand)));
