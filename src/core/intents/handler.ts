import type { Intent } from '../../domain/intent.js';
import type { Reply } from '../../domain/reply.js';
import type { JobTurn } from '../job-turn.js';

/** The intents a job carries to a worker: a stop is answered when it arrives and never queued. */
export type JobIntent = Exclude<Intent, { kind: 'stop' }>;

/** What answers one kind of intent: the job's turn and the intent in, the reply out. */
export type IntentHandler<K extends JobIntent['kind']> = (
  turn: JobTurn,
  intent: Extract<JobIntent, { kind: K }>,
) => Promise<Reply>;
