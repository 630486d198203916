import type { Artifact, Display, ExecutionStatus, Language } from './execution.js';
import type { ErrorCode } from './errors.js';
import type { Reply } from './reply.js';

/**
 * What is happening in a thread right now, for live status in every platform. A union discriminated
 * on `type`; adapters render the ones they can and ignore the rest.
 */
export type ProgressEvent =
  | { type: 'queued'; position: number }
  | { type: 'started' }
  | { type: 'thinking'; round: number }
  | { type: 'text'; delta: string }
  | { type: 'code'; round: number; language: Language; code: string }
  | { type: 'output'; stream: 'stdout' | 'stderr'; text: string }
  | { type: 'display'; display: Display }
  | { type: 'file'; artifact: Artifact }
  | { type: 'run_finished'; status: ExecutionStatus; durationMs: number }
  | { type: 'final'; reply: Reply }
  | { type: 'error'; code: ErrorCode; message: string };

export type ProgressListener = (event: ProgressEvent) => void;
