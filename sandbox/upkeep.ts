import type Docker from 'dockerode';
import type { Logger } from '../src/logger.js';
import { pruneMirrors } from './mirror-retention.js';
import { removeOrphans } from './orphans.js';
import type { SessionRegistry } from './session-registry.js';

export interface UpkeepOptions {
  docker: Docker;
  /** This process's instance: its own containers are never removed. */
  instanceId: string;
  /** Host directory of the per-session file mirrors. */
  dataDir: string;
  /** How long the host copy of an idle session's files is kept (THREADLAB_FILES_TTL_MS). */
  filesTtlMs: number;
  /** How often containers of dead processes are looked for and removed. @defaultValue 60000 */
  orphanSweepMs?: number;
  /** This process's sessions: the files of those it holds stay. */
  registry: Pick<SessionRegistry, 'all'>;
  logger: Logger;
}

/**
 * Keeps the host tidy around a sandbox: the containers of crashed instances go at start; once started, timers delete
 * the host copies of files of sessions idle beyond THREADLAB_FILES_TTL_MS and sweep the containers of peer processes
 * that died meanwhile.
 */
export class Upkeep {
  private pruneTimer: NodeJS.Timeout | undefined;
  private orphanTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: UpkeepOptions) {}

  /** Removes the containers of crashed instances; a failure (the engine unreachable, say) fails the start. */
  async removeOrphans(): Promise<void> {
    const removed = await removeOrphans(this.options.docker, { olderThanInstance: this.options.instanceId });
    if (removed.length > 0) this.options.logger.info({ removed }, 'removed orphaned sandbox containers');
  }

  /** Prunes old files now, then prunes and sweeps on timers that keep no process alive. */
  start(): void {
    void this.pruneFiles();
    this.pruneTimer = setInterval(() => void this.pruneFiles(), Math.min(this.options.filesTtlMs, 3_600_000));
    this.pruneTimer.unref();
    // A peer process that died while this one runs leaves containers behind: sweep, not only at start.
    this.orphanTimer = setInterval(() => void this.sweepOrphans(), this.options.orphanSweepMs ?? 60_000);
    this.orphanTimer.unref();
  }

  stop(): void {
    clearInterval(this.pruneTimer);
    clearInterval(this.orphanTimer);
  }

  private async sweepOrphans(): Promise<void> {
    try {
      const removed = await removeOrphans(this.options.docker, { olderThanInstance: this.options.instanceId });
      if (removed.length > 0)
        this.options.logger.info({ removed }, 'removed sandbox containers of a process that died');
    } catch (err) {
      this.options.logger.warn({ err }, 'could not sweep orphaned sandbox containers');
    }
  }

  /** Deletes host copies of files of sessions idle beyond THREADLAB_FILES_TTL_MS. */
  private async pruneFiles(): Promise<void> {
    const live = new Set(this.options.registry.all().map((s) => s.hash));
    try {
      const removed = await pruneMirrors(this.options.dataDir, {
        maxAgeMs: this.options.filesTtlMs,
        keep: (name) => live.has(name),
      });
      if (removed.length > 0)
        this.options.logger.info({ removed: removed.length }, 'deleted files of long-idle sessions');
    } catch (err) {
      this.options.logger.warn({ err }, 'could not prune old session files');
    }
  }
}
