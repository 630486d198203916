import { closeSync, constants, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';

/** Whether a process of this host is running (one of another user counts: signal 0 is refused, not failed). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the lock file at `path` for this process, taking over a stale one (its holder died); otherwise says who
 * holds it (0: an empty lock still young, see {@link pidLockHolder}).
 */
export function claimPidLock(path: string): { taken: true } | { taken: false; holder: number } {
  for (;;) {
    if (takePidLock(path)) return { taken: true };
    const holder = pidLockHolder(path);
    if (holder !== undefined) return { taken: false, holder };
    releasePidLock(path); // stale: its process died holding it
  }
}

/**
 * Takes the lock file at `path` for this process: created exclusively (never through a symlink) with this
 * process's pid in it. False when another holds it.
 */
function takePidLock(path: string): boolean {
  try {
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/**
 * The pid of the lock's holder while it runs (0 while an empty lock is young: its holder created it and has not
 * written its pid yet, given 5 s); undefined when the lock is free or its holder died (then it is stale and may be
 * removed).
 */
function pidLockHolder(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined; // released meanwhile
  }
  if (text === '') return Date.now() - (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0) < 5000 ? 0 : undefined;
  const pid = Number(text);
  return Number.isInteger(pid) && pid > 0 && processAlive(pid) ? pid : undefined;
}

/** Releases (or clears a stale) lock file. */
export function releasePidLock(path: string): void {
  rmSync(path, { force: true });
}
