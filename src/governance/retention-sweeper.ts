import type { Logger } from '../logger.js';
import { ageAuditFiles } from './retention-audit-age.js';
import type { RetentionSource } from './retention.js';

/** How often a running bot sweeps, and how much one sweep may remove. */
export const SWEEP_LIMITS = {
  /** Between sweeps (the first runs at start). Retention is counted in minutes at the finest, so hourly is enough. */
  intervalMs: 3_600_000,
  /** Threads one sweep removes at most per kind; the rest go in the next sweep, and the log line says so. */
  maxThreadsPerKind: 500,
};

/** One kind of per-thread data with its retention: threads untouched for `maxAgeMs` are removed. */
export interface SweepKind {
  /** As the log line names it: `state`, `web history`. */
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
