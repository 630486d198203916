import { AsyncLocalStorage } from 'node:async_hooks';
import type { Job } from '../../ports/job-queue.js';
import type { AuditFile, AuditTokens } from './audit-record.js';

/**
 * What the audit lines of one job share: who asked and where, the files the message put into the
 * sandbox, and the last model call (whose tool calls the next runs carry out). It travels with the
 * job's async context, so the sandbox and model decorators learn it without every layer between the
 * worker and them passing it on.
 */
export interface AuditScope {
  user: string | null;
  /** The job's thread key. */
  thread: string | null;
  job: string | null;
  /** Files put into `/mnt/data` during the job, in order. */
  filesIn: AuditFile[];
  /**
   * Where the user's code of this job came from, when not typed in its own message: another message's fenced blocks
   * (`message`) or an attached script (`attachment`); `author` says whether the person who asked wrote it.
   */
  source?: AuditSource;
  /** The latest model call's tokens and the SHA-256 of the code of each run_code call it made. */
  lastModelCall?: { tokens: AuditTokens; codeHashes: Set<string> };
}

/** Where a run's code came from, as its audit line says it (a role, never the author's id: erasure stays whole). */
export interface AuditSource {
  kind: 'message' | 'attachment';
  author: 'invoker' | 'other';
}

const storage = new AsyncLocalStorage<AuditScope>();

/** Runs `fn` with the audit scope of `job`. */
export function withJobAuditScope<T>(job: Job, fn: () => T): T {
  const source = sourceOf(job);
  return withAuditScope(
    { user: job.message.user.id, thread: job.threadKey, job: job.id, ...(source ? { source } : {}) },
    fn,
  );
}

/** Runs `fn` with a fresh audit scope naming who asked, where and in which job (each may be null). */
export function withAuditScope<T>(who: Pick<AuditScope, 'user' | 'thread' | 'job' | 'source'>, fn: () => T): T {
  return storage.run({ ...who, filesIn: [] }, fn);
}

function sourceOf(job: Job): AuditSource | undefined {
  const kind =
    job.intent?.kind === 'runCells' ? 'message' : job.intent?.kind === 'runScript' ? 'attachment' : undefined;
  if (!kind) return undefined;
  const { source, user } = job.message;
  return { kind, author: source && source.authorId !== user.id ? 'other' : 'invoker' };
}

/** The scope of the job running in this async context, if any (CLI `exec` runs have none). */
export function currentAuditScope(): AuditScope | undefined {
  return storage.getStore();
}
