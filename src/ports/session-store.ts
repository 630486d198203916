import type { Language, ExecutionStatus } from '../domain/execution.js';

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
