import { ThreadlabError } from '../../src/domain/errors.js';
import { claimPidLock, releasePidLock } from '../../src/ops/pid-lock.js';
import { dataDirLayout } from '../../src/domain/data-dir.js';

export interface StartLockOptions {
  dataDir: string;
  /** Longest wait for another command that is starting the daemon. @defaultValue 130000 */
  waitMs?: number;
}

/**
 * Runs `fn` while holding the data directory's start lock, so that commands started together
 * start one daemon, not one each (the losers' daemons would hold containers until their idle TTL).
 * A lock left by a process that died is taken over.
 */
export async function withStartLock<T>(options: StartLockOptions, fn: () => Promise<T>): Promise<T> {
  const lock = dataDirLayout(options.dataDir).daemonStartLock;
  const waitMs = options.waitMs ?? 130_000;
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (claimPidLock(lock).taken) break;
    if (Date.now() > deadline)
      throw new ThreadlabError(
        'sandbox_start_failed',
        `Another threadlab command has been starting the daemon for over ${Math.ceil(waitMs / 1000)} s (${lock}); try again, or remove that file if no threadlab command runs.`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
  try {
    return await fn();
  } finally {
    releasePidLock(lock);
  }
}
