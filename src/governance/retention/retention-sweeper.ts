import type { Config } from '../../config/index.js';
import { MEMORY_TTL_MS } from '../../interpreter/memory.js';
import type { Logger } from '../../logger.js';
import { ageAuditFiles } from './retention-audit-age.js';
import { createParticipantIndex } from './retention-index.js';
import type { RetentionSource } from '../../ports/retention-source.js';

/** How often a running bot sweeps, and how much one sweep may remove. */
export const SWEEP_LIMITS = {
  /** Between sweeps (the first runs at start). Retention is counted in minutes at the finest, so hourly is enough. */
  intervalMs: 3_600_000,
  /** Threads one sweep removes at most per kind; the rest go in the next sweep, and the log line says so. */
  maxThreadsPerKind: 500,
};

/** One kind of per-thread data with its retention: threads untouched for `maxAgeMs` are removed. */
export interface SweepKind {
  /** As the log line names it: `state`, `who wrote`, or a surface's history. */
  kind: string;
  maxAgeMs: number;
  source: Pick<RetentionSource, 'purgeIdle'>;
}

export interface RetentionSweeperOptions {
  kinds: SweepKind[];
  /** The audit file (THREADLAB_AUDIT_LOG) and how long its lines are kept (THREADLAB_RETENTION_AUDIT). */
  audit?: { path: string; maxAgeMs: number };
  /**
   * Hashes of threads with a live sandbox container (a running job always has one): their data is left
   * alone. When this fails, no per-thread kind is swept that time: what is live cannot be told.
   */
  liveHashes: () => Promise<Set<string>>;
  logger: Logger;
  /** @defaultValue SWEEP_LIMITS.intervalMs */
  intervalMs?: number;
  /** @defaultValue SWEEP_LIMITS.maxThreadsPerKind */
  maxThreadsPerKind?: number;
  /** @defaultValue Date.now */
  now?: () => number;
}

/** What one sweep did: threads removed per kind, audit lines and files removed, kinds left at the bound. */
export interface SweepSummary {
  removed: Record<string, number>;
  auditLines: number;
  auditFiles: number;
  /** Kinds that hit the per-sweep bound: more is left for the next sweep. */
  more: string[];
  failures: { kind: string; error: string }[];
}

/**
 * Timed retention in a running bot: at start and then every `intervalMs`, each kind's data older than its
 * setting is removed (threads with a live session left), and the audit trail's old lines. One log line per
 * sweep with the counts; a failure is logged and the next sweep tries again; it never throws.
 */
export class RetentionSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<SweepSummary> | undefined;
  private stopped = false;

  constructor(private readonly options: RetentionSweeperOptions) {}

  /** Sweeps now, then every interval, until {@link stop}. */
  start(): void {
    if (this.timer || this.stopped) return;
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), this.options.intervalMs ?? SWEEP_LIMITS.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a sweep under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One sweep (a sweep already under way is joined, not doubled). */
  sweep(): Promise<SweepSummary> {
    this.running ??= this.sweepOnce().finally(() => (this.running = undefined));
    return this.running;
  }

  private async sweepOnce(): Promise<SweepSummary> {
    const { kinds, audit, logger } = this.options;
    const summary: SweepSummary = { removed: {}, auditLines: 0, auditFiles: 0, more: [], failures: [] };
    const startedMs = Date.now();
    const nowMs = (this.options.now ?? Date.now)();
    const maxThreads = this.options.maxThreadsPerKind ?? SWEEP_LIMITS.maxThreadsPerKind;
    let live: Set<string> | undefined;
    if (kinds.length > 0) {
      live = await this.options.liveHashes().catch((err: unknown) => {
        summary.failures.push({ kind: 'live sessions', error: (err as Error).message });
        return undefined;
      });
    }
    const keep = (hash: string): boolean => live?.has(hash) ?? true;
    for (const { kind, maxAgeMs, source } of live ? kinds : []) {
      if (this.stopped) break;
      try {
        const items = await source.purgeIdle(nowMs - maxAgeMs, { keep, maxThreads });
        const threads = new Set(items.map((i) => i.thread)).size;
        summary.removed[kind] = threads;
        if (threads >= maxThreads) summary.more.push(kind);
      } catch (err) {
        summary.failures.push({ kind, error: (err as Error).message });
      }
    }
    if (audit && !this.stopped) {
      try {
        const aging = await ageAuditFiles(audit.path, nowMs - audit.maxAgeMs);
        summary.auditLines = aging.droppedLines;
        summary.auditFiles = aging.removedFiles.length;
      } catch (err) {
        summary.failures.push({ kind: 'audit', error: (err as Error).message });
      }
    }
    const fields = { ...summary, durationMs: Date.now() - startedMs };
    if (summary.failures.length > 0) logger.warn(fields, 'retention sweep: some data could not be removed');
    else logger.info(fields, 'retention sweep');
    return summary;
  }
}

/**
 * History a chat surface keeps of its own threads, described by its adapter: swept in the one process that
 * serves the surface (role all), and the who-wrote index keeps its threads' entries while the history is kept.
 */
export interface SurfaceHistory {
  /** As the log line names it. */
  kind: string;
  /** Threads untouched this long go; undefined keeps them until a purge. */
  maxAgeMs: number | undefined;
  /** Whether a thread key is one of this surface's threads. */
  owns: (key: string) => boolean;
  source: () => Pick<RetentionSource, 'purgeIdle'>;
}

/** What a role's sweep is made of; each source is made only when the role sweeps its kind. */
export interface SweepSources {
  /** Saved variables of threads, beside their files (the sandbox's layout). */
  state: () => Pick<RetentionSource, 'purgeIdle'>;
  /** The histories of the surfaces this process serves (none when it serves none that keeps one). */
  histories: SurfaceHistory[];
  /** Hashes of the threads with a live sandbox container on this engine. */
  liveHashes: () => Promise<Set<string>>;
}

/**
 * The timed retention of `threadlab start` for a role, or undefined when it has nothing to sweep. Each kind
 * is swept where it lives: saved state beside the thread files on the machine that runs code (worker, all);
 * a surface's own history in the one process that serves it (all); the who-wrote index where messages arrive
 * (gateway, all); the audit file by the processes that write it (worker, all; the gateway runs no code and
 * calls no model, so it writes none).
 */
export function retentionSweeperFor(options: {
  config: Config;
  role: Config['ops']['role'];
  logger: Logger;
  sources: SweepSources;
}): RetentionSweeper | undefined {
  const { config, role, sources } = options;
  const runsCode = role !== 'gateway';
  const { stateMs, auditMs } = config.retention;
  const kinds: SweepKind[] = [];
  if (stateMs !== undefined && runsCode) kinds.push({ kind: 'state', maxAgeMs: stateMs, source: sources.state() });
  if (role === 'all')
    for (const history of sources.histories)
      if (history.maxAgeMs !== undefined)
        kinds.push({ kind: history.kind, maxAgeMs: history.maxAgeMs, source: history.source() });
  if (role !== 'worker') kinds.push(indexKind(config, sources.histories));
  const audit =
    runsCode && auditMs !== undefined && config.audit.destination === 'file'
      ? { path: config.audit.path, maxAgeMs: auditMs }
      : undefined;
  if (kinds.length === 0 && !audit) return undefined;
  return new RetentionSweeper({
    kinds,
    ...(audit ? { audit } : {}),
    // A gateway holds no containers (and needs no Docker); its index entries outlive any session (indexKind).
    liveHashes: runsCode ? sources.liveHashes : () => Promise.resolve(new Set<string>()),
    logger: options.logger.child({ component: 'retention' }),
  });
}

/**
 * The who-wrote index (retention-index.ts) names users, so an entry goes once nothing of its thread is left
 * for an erasure to find: after the longest any of the thread's data is kept past its last message (the files,
 * THREADLAB_FILES_TTL_MS; the conversation memory, 7 days). No setting of its own: it follows the data. A
 * surface's thread keeps its entry while that surface's history is kept longer than that.
 */
export function indexKind(config: Config, histories: readonly SurfaceHistory[] = []): SweepKind {
  const maxAgeMs = Math.max(config.sandbox.filesTtlMs, MEMORY_TTL_MS);
  const kept = histories.filter((h) => h.maxAgeMs === undefined || h.maxAgeMs > maxAgeMs);
  const keepKey = (key: string) => kept.some((h) => h.owns(key));
  const index = createParticipantIndex(config.dataDir);
  const source: RetentionSource = {
    name: index.name,
    purgeThread: (key) => index.purgeThread(key),
    purgeIdle: (cutoffMs, idle) => index.purgeIdle(cutoffMs, { ...idle, ...(kept.length > 0 ? { keepKey } : {}) }),
  };
  return { kind: 'who wrote', maxAgeMs, source };
}
