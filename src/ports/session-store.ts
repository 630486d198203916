import type { Language, ExecutionStatus } from '../domain/execution.js';
import type { InboundAttachment } from '../domain/messages.js';

/** One exchange kept in a thread's memory. */
export type HistoryEntry =
  | { role: 'user'; text: string; atMs: number; files?: string[] }
  | { role: 'assistant'; text: string; atMs: number }
  | { role: 'code'; language: Language; code: string; status: ExecutionStatus; summary: string; atMs: number };

/** What Threadlab remembers about a thread between messages. */
export interface SessionRecord {
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
}

/**
 * Conversation memory per thread. The memory implementation is the embedded default; the Redis one
 * is used when REDIS_URL is set. Both pass one contract suite.
 */
export interface SessionStore {
  get(key: string): Promise<SessionRecord | undefined>;
  /** Stores the record; it expires `ttlMs` after the last write. */
  put(key: string, record: SessionRecord, ttlMs: number): Promise<void>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}
