/**
 * Retention: deleting a thread's data on request (`threadlab purge`) from every place that holds it. Each
 * place is a {@link RetentionSource} implemented at the edge (the files' host copies, conversation memory,
 * a surface's own history, a live container); this module only decides which threads go and collects what
 * each source reports, so the report names everything removed and nothing is removed silently.
 */
import type { IdleOptions, PurgedItem, RetentionSource } from '../../ports/retention-source.js';

/** How a source's idle purge looks at each thread it stores (see {@link purgeIdleEach}). */
export interface IdleScan<T extends { lastWriteMs: number }> {
  /** The names the source stores threads under (directories, files). */
  names: string[];
  cutoffMs: number;
  idle?: IdleOptions;
  /** The name `idle.keep` is asked about: the thread key's hash. @defaultValue the name itself */
  hashOf?: (name: string) => string;
  /** What the thread holds and when it was last written (epoch ms); undefined when there is nothing to purge. */
  look: (name: string) => Promise<T | undefined>;
  /** Removes what `look` found, and says what it removed. */
  remove: (name: string, found: T) => Promise<PurgedItem[]>;
}

/**
 * Idle purging, the same for every source: each stored thread that `keep` does not name and that nobody wrote
 * since the cutoff is removed, at most `maxThreads` of them (the rest are left for the next call).
 */
export async function purgeIdleEach<T extends { lastWriteMs: number }>(scan: IdleScan<T>): Promise<PurgedItem[]> {
  const { idle = {} } = scan;
  const removed: PurgedItem[] = [];
  let threads = 0;
  for (const name of scan.names) {
    if (threads >= (idle.maxThreads ?? Infinity)) break;
    if (idle.keep?.(scan.hashOf ? scan.hashOf(name) : name)) continue;
    const found = await scan.look(name);
    if (!found || found.lastWriteMs >= scan.cutoffMs) continue;
    threads += 1;
    removed.push(...(await scan.remove(name, found)));
  }
  return removed;
}

/** Which threads who took part in, so `--user` can find theirs (see retention-index.ts). */
export interface ParticipantLookup {
  /** Keys of the threads `userId` wrote in, each with everyone else who did. */
  threadsOf(userId: string): Promise<{ key: string; others: string[] }[]>;
}

/** What to purge: one thread, one user's threads, or everything idle for a while. */
export type PurgeTarget = { thread: string } | { user: string } | { olderThanMs: number };

/** What a purge did, source by source, and what it deliberately left. */
export interface PurgeReport {
  removed: PurgedItem[];
  /** Threads a `--user` purge left because other people wrote in them too. */
  shared: { key: string; others: number }[];
  /** Sources that failed, with why: the purge goes on with the others and the report says so. */
  failures: { source: string; thread?: string; error: string }[];
}

export interface PurgeOptions {
  sources: RetentionSource[];
  participants: ParticipantLookup;
  /** Threads an `olderThanMs` purge must leave (live sessions). */
  idle?: IdleOptions;
  /** @defaultValue Date.now() */
  nowMs?: number;
}

async function fromEach(
  sources: RetentionSource[],
  report: PurgeReport,
  call: (source: RetentionSource) => Promise<PurgedItem[]>,
  thread?: string,
): Promise<void> {
  // One after another: the files go before the memory that names them, and a failure stays one source's.
  for (const source of sources) {
    try {
      report.removed.push(...(await call(source)));
    } catch (err) {
      report.failures.push({ source: source.name, ...(thread ? { thread } : {}), error: (err as Error).message });
    }
  }
}

/**
 * Deletes the target's data from every source. A `user` target removes the threads only that user wrote in;
 * threads shared with others are listed in `shared` (purge them by key when they must go: others' messages
 * would go with them).
 */
export async function purge(target: PurgeTarget, options: PurgeOptions): Promise<PurgeReport> {
  const report: PurgeReport = { removed: [], shared: [], failures: [] };
  if ('thread' in target) {
    await fromEach(options.sources, report, (s) => s.purgeThread(target.thread), target.thread);
  } else if ('user' in target) {
    for (const { key, others } of await options.participants.threadsOf(target.user)) {
      if (others.length > 0) report.shared.push({ key, others: others.length });
      else await fromEach(options.sources, report, (s) => s.purgeThread(key), key);
    }
  } else {
    const cutoffMs = (options.nowMs ?? Date.now()) - target.olderThanMs;
    await fromEach(options.sources, report, (s) => s.purgeIdle(cutoffMs, options.idle));
  }
  return report;
}
