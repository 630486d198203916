import { textReply } from '../../domain/reply.js';
import type { IntentHandler } from './handler.js';

/** `schedule …`: make, list or cancel a scheduled report (src/schedules). */
export const schedule: IntentHandler<'schedule'> = async (turn, intent) => {
  const { schedules } = turn.services;
  if (!schedules) return textReply('Scheduled reports are not available in this process.');
  return textReply((await schedules.command(turn.message, intent.text)).text);
};
