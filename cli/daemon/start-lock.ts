import { closeSync, constants, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ThreadlabError } from '../../src/domain/errors.js';

export interface StartLockOptions {
  dataDir: string;
  /** Longest wait for another command that is starting the daemon. @defaultValue 130000 */
  waitMs?: number;
}

function holderAlive(lock: string): boolean {
  let text: string;
  try {
    text = readFileSync(lock, 'utf8');
  } catch {
    return false; // released meanwhile
  }
  // Empty: its holder created it and has not written its pid yet (or died in between).
  if (text === '') return Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0) < 5000;
  const pid = Number(text);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs `fn` while holding the data directory's start lock, so that commands started together
 * start one daemon, not one each (the losers' daemons would hold containers until their idle TTL).
 * A lock left by a process that died is taken over.
 */
export async function withStartLock<T>(options: StartLockOptions, fn: () => Promise<T>): Promise<T> {
  const lock = join(options.dataDir, 'daemon.start.lock');
  const waitMs = options.waitMs ?? 130_000;
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const fd = openSync(
        lock,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o600,
      );
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (!holderAlive(lock)) {
      rmSync(lock, { force: true });
      continue;
    }
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
    rmSync(lock, { force: true });
  }
}
