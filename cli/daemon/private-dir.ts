import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { ThreadlabError } from '../../src/domain/errors.js';

/**
 * Makes sure `dir` (the data directory, holding the daemon's socket and users' files) is a
 * directory owned by the current user that nobody else may enter. A directory of ours that is
 * open to others is made private (returns the mode it had); one owned by someone else is refused.
 */
export function ensurePrivateDir(dir: string): { previousMode?: number } {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const info = statSync(dir);
  if (!info.isDirectory()) throw unsafe(`${dir} is not a directory.`);
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) {
    throw unsafe(
      `${dir} belongs to user ${info.uid}, not to you (${uid}): another user could read or replace the daemon's socket. ` +
        'Set THREADLAB_DATA_DIR to a directory of your own.',
    );
  }
  const mode = info.mode & 0o777;
  if ((mode & 0o077) === 0) return {};
  chmodSync(dir, 0o700);
  return { previousMode: mode };
}

function unsafe(message: string): ThreadlabError {
  return new ThreadlabError('config_invalid', `Unsafe THREADLAB_DATA_DIR: ${message}`, { isPolicy: true });
}
