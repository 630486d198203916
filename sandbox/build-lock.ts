import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ThreadlabError } from '../src/domain/errors.js';
import { claimPidLock, releasePidLock } from '../src/ops/pid-lock.js';

export interface BuildOnceOptions {
  /** What is built (an image tag): one lock per name. */
  name: string;
  /** Whether what the build makes exists already (another process made it). */
  exists: () => Promise<boolean>;
  say: (line: string) => void;
  /** The folder of the lock files. @defaultValue the OS temporary folder */
  dir?: string;
  /** How long to wait for another process's build. @defaultValue 30 min */
  waitMs?: number;
  /** How often a waiting process looks. @defaultValue 1 s */
  pollMs?: number;
}

/**
 * Runs `build` unless another process of this machine is building the same thing: then waits for it, and
 * answers 'elsewhere' once what it makes exists. The holder is named by a lock file (its pid); a lock whose
 * process is gone is stale and taken over, and a build that ended without its result (it failed) leaves the
 * lock free for the next one to try and report its own failure. Two `threadlab sandbox build`s, or one and a
 * test run's set-up, so never build one image twice at once (the lock file: src/ops/pid-lock.ts).
 */
export async function buildOnce<T>(options: BuildOnceOptions, build: () => Promise<T>): Promise<T | 'elsewhere'> {
  const lock = join(options.dir ?? tmpdir(), `threadlab-build-${options.name.replace(/[^A-Za-z0-9._-]/g, '-')}.lock`);
  const deadline = Date.now() + (options.waitMs ?? 30 * 60_000);
  let told = false;
  for (;;) {
    const claim = claimPidLock(lock); // a lock whose process died while building is taken over
    if (claim.taken) {
      try {
        // It may have been made between the caller's look and this lock.
        return (await options.exists()) ? 'elsewhere' : await build();
      } finally {
        releasePidLock(lock);
      }
    }
    const { holder } = claim;
    if (await options.exists()) return 'elsewhere';
    if (Date.now() > deadline)
      throw new ThreadlabError(
        'sandbox_image_missing',
        `Another process (pid ${holder || '?'}) has been building ${options.name} for too long; stop it or remove ${lock}.`,
      );
    if (!told) options.say(`waiting for the build of ${options.name} in progress (pid ${holder || '?'})`);
    told = true;
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 1000));
  }
}
