import { describe, expect, it } from 'vitest';
import { intentOf } from '../../../src/core/read-intent.js';
import { adapterMessage } from '../../fakes/profiles.js';

/** The wordings people type after `schedule` in a thread: each is the command on every chat surface. */
const TYPED = [
  'daily 09:00 how are sales?',
  'every day at 9am how are sales?',
  'every weekday at 9am how are sales?',
  'hourly rerun',
  'every monday 8:30 rerun',
  'every 2 hours rerun',
  'weekly on friday at 17:00 rerun',
  'weekdays at 7am rerun',
  // Looks like a schedule but does not parse: still the command, so the parser answers with the syntax.
  'daily whenever you like',
];

describe('a typed schedule in natural words', () => {
  it('is the schedule command on Slack, Discord and the web chat, never a question for the model', () => {
    for (const platform of ['slack', 'discord', 'web'] as const)
      for (const text of TYPED)
        expect(intentOf(adapterMessage(platform, `schedule ${text}`)), `${platform}: ${text}`).toEqual({
          kind: 'schedule',
          text,
        });
  });

  it('leaves questions that begin with the word alone', () => {
    for (const text of ['schedule a meeting with Bob', 'schedule the report for me', 'Schedule?'])
      expect(intentOf(adapterMessage('slack', text))).toMatchObject({ kind: 'ask' });
  });
});
