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
  /** A query to a data source (issue 38) starts: the source's name and the SQL, never a connection detail. */
  | { type: 'query'; round: number; source: string; sql: string }
  /** It ended: rows and time, the DataFrame it became, or why not (plain words). */
  | { type: 'query_finished'; source: string; outcome: QueryStepOutcome }
  | { type: 'final'; reply: Reply }
  | { type: 'error'; code: ErrorCode; message: string };

export type ProgressListener = (event: ProgressEvent) => void;

/** How a query step ended, for live status: its rows, bytes and time and the DataFrame, or the failure's words. */
export type QueryStepOutcome =
  | { ok: true; rows: number; bytes: number; ms: number; name: string; file: string; cut?: 'rows' | 'bytes' }
  | { ok: false; kind: string; message: string; ms: number };
