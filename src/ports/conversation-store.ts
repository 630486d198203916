import type { Language, ExecutionStatus } from '../domain/execution.js';
import type { InboundAttachment } from '../domain/messages.js';
import type { FigureCounts } from '../domain/figures.js';

/** One exchange kept in a thread's memory. */
export type HistoryEntry =
  | { role: 'user'; text: string; atMs: number; files?: string[] }
  | { role: 'assistant'; text: string; atMs: number }
  | {
      role: 'code';
      language: Language;
      code: string;
      status: ExecutionStatus;
      summary: string;
      atMs: number;
      /** Another person's code, run from their message: `code` is empty and `summary` names files only. */
      foreign?: true;
    };

/** A message the bot answered and where the answer is, so an edit of the message can update it. */
export interface AnsweredMessage {
  /** The `id` of the InboundMessage as first received. */
  questionId: string;
  /** Who sent it: only their edits re-run it. */
  userId: string;
  /** The text last answered (an edit that leaves it unchanged is ignored). */
  text: string;
  /** The answer's platform message ids. */
  answerIds: string[];
  atMs: number;
  /** The model that wrote the answer, when it was a model's answer (feedback on it is counted for this model). */
  model?: string;
}

/** One output of a run kept for the notebook export, already cut to the export's limits. */
export type ExportOutput =
  | { type: 'stream'; name: 'stdout' | 'stderr'; text: string }
  /** A rich value: MIME type to content (text/plain, text/html, image/png as base64). */
  | { type: 'display'; data: Record<string, string> };

/**
 * One entry of a thread's export log (the `export` command's notebook): a user's message, a run that
 * succeeded with its outputs, or the model's answer with the check of its figures (`figures`, absent when the
 * answer was not checked; logs written before answers were recorded have no answer entries).
 * `omitted` says what the log's limits left out of the entry.
 */
export type ExportEntry =
  | { kind: 'message'; text: string; atMs: number; omitted?: string[] }
  | {
      kind: 'run';
      language: Language;
      code: string;
      outputs: ExportOutput[];
      atMs: number;
      omitted?: string[];
      /** Set on a run that loaded a data source query's saved CSV (its path under `/mnt/data`): the export attaches it. */
      queryFile?: string;
      /**
       * The query itself (same run): a re-run asks the source again with it rather than load the saved CSV. Absent
       * from logs written before re-runs re-queried, and when the SQL is over the export's code limit.
       */
      query?: { source: string; sql: string; name: string };
    }
  | { kind: 'answer'; text: string; atMs: number; omitted?: string[]; figures?: FigureCounts };

/** How much of a thread's export log is kept; the oldest entries go first past either limit. */
export interface ExportLogLimits {
  maxEntries: number;
  /** Total of the entries' JSON, in bytes. */
  maxBytes: number;
  /** The log expires this long after its last append, in ms. */
  ttlMs: number;
}

/** A thread's export log and how many older entries its limits dropped. */
export interface ExportLog {
  entries: ExportEntry[];
  dropped: number;
}

/** What Threadlab remembers about a thread between messages. */
export interface ConversationRecord {
  history: HistoryEntry[];
  createdAtMs: number;
  updatedAtMs: number;
  /** Entries dropped from the front to stay within the memory budget. */
  trimmedEntries: number;
  /**
   * Files users uploaded into the thread and where they landed in /mnt/data, so a worker that never
   * held the thread's files (failover without shared storage) can fetch them again from the platform.
   */
  uploads?: { path: string; attachment: InboundAttachment }[];
  /** The latest answered messages, oldest first (bounded); the last one is the thread's latest exchange. */
  answers?: AnsweredMessage[];
}

/**
 * Conversation memory per thread. The memory implementation is the embedded default; the Redis one
 * is used when REDIS_URL is set. Both pass one contract suite.
 */
export interface ConversationStore {
  get(key: string): Promise<ConversationRecord | undefined>;
  /** Stores the record; it expires `ttlMs` after the last write. */
  put(key: string, record: ConversationRecord, ttlMs: number): Promise<void>;
  /** Forgets the record and the thread's export log. */
  delete(key: string): Promise<void>;
  /**
   * Appends to the thread's export log, kept apart from the record (its outputs would make every memory write
   * heavy) and bounded: past `maxEntries` or `maxBytes` the oldest entries are dropped and counted.
   */
  appendExport(key: string, entry: ExportEntry, limits: ExportLogLimits): Promise<void>;
  /** The thread's export log, oldest first (empty when there is none). */
  readExport(key: string): Promise<ExportLog>;
  close(): Promise<void>;
}
