import { lstat, readdir, rm } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { purgeIdleEach, type IdleScan } from '../src/governance/retention/retention.js';
import type { IdleOptions, PurgedItem, RetentionSource } from '../src/ports/retention-source.js';
import { threadHash } from '../src/domain/thread-key.js';
import { STATE_DIR_PARTS } from './session-state.js';
import { dataDirLayout } from '../src/domain/data-dir.js';

/**
 * Where the sandbox keeps the host copies of threads' files in THREADLAB_DATA_DIR: one directory per thread,
 * named by the key's hash ({@link threadHash}), with the thread's saved variables inside (STATE_DIR_PARTS).
 */
export function threadFilesDir(dataDir: string): string {
  return dataDirLayout(dataDir).sandboxFiles;
}

const STATE_DIR = join(...STATE_DIR_PARTS);

/** Directories deeper than this are not walked (a hostile tree): removed with their parent, not counted. */
const MAX_WALK_DEPTH = 32;

interface Tally {
  files: number;
  bytes: number;
  stateFiles: number;
  stateBytes: number;
  /** The newest change in the tree, epoch ms. */
  lastWriteMs: number;
}

/** Counts a host copy's files (links are not followed), its saved state apart, and its newest change. */
async function tally(root: string): Promise<Tally> {
  const t: Tally = { files: 0, bytes: 0, stateFiles: 0, stateBytes: 0, lastWriteMs: (await lstat(root)).mtimeMs };
  const walk = async (dir: string, depth: number): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      const info = await lstat(full);
      t.lastWriteMs = Math.max(t.lastWriteMs, info.mtimeMs);
      if (entry.isDirectory() && depth < MAX_WALK_DEPTH) await walk(full, depth + 1);
      else if (!entry.isDirectory()) {
        const inState = relative(root, full).startsWith(`${STATE_DIR}${sep}`);
        if (inState) {
          t.stateFiles += 1;
          t.stateBytes += info.size;
        } else {
          t.files += 1;
          t.bytes += info.size;
        }
      }
    }
  };
  await walk(root, 0);
  return t;
}

/** The tally of a directory, or undefined when it is not there (or went meanwhile: another worker pruned it). */
async function tallyIfThere(dir: string): Promise<Tally | undefined> {
  return tally(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
}

/** {@link purgeIdleEach} over the thread directories under `root`. */
async function purgeIdleDirs<T extends { lastWriteMs: number }>(
  root: string,
  scan: Omit<IdleScan<T>, 'names'>,
): Promise<PurgedItem[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  return purgeIdleEach({ ...scan, names: entries.filter((e) => e.isDirectory()).map((e) => e.name) });
}

export interface FilesRetentionOptions {
  /** {@link threadFilesDir}: one directory per thread, named by `nameOf(key)`. */
  root: string;
  nameOf: (key: string) => string;
  /** The key of a directory name, when known (reports name threads by key). */
  keyOf?: (name: string) => Promise<string | undefined>;
}

function itemsOf(thread: string, t: Tally): PurgedItem[] {
  const items: PurgedItem[] = [{ what: 'files', thread, files: t.files, bytes: t.bytes }];
  if (t.stateFiles > 0) items.push({ what: 'state', thread, files: t.stateFiles, bytes: t.stateBytes });
  return items;
}

/**
 * The host copies of threads' files, with their saved variables inside: removing a thread's directory removes
 * both, and the report counts them apart.
 */
export class FilesRetention implements RetentionSource {
  readonly name = 'thread files and saved state';

  constructor(private readonly options: FilesRetentionOptions) {}

  async purgeThread(key: string): Promise<PurgedItem[]> {
    const dir = join(this.options.root, this.options.nameOf(key));
    const t = await tallyIfThere(dir);
    if (!t) return [];
    await rm(dir, { recursive: true, force: true });
    return itemsOf(key, t);
  }

  async purgeIdle(cutoffMs: number, idle?: IdleOptions): Promise<PurgedItem[]> {
    const { root, keyOf } = this.options;
    return purgeIdleDirs(root, {
      cutoffMs,
      idle,
      look: (name) => tallyIfThere(join(root, name)),
      remove: async (name, t) => {
        await rm(join(root, name), { recursive: true, force: true });
        return itemsOf((await keyOf?.(name)) ?? name, t);
      },
    });
  }
}

/**
 * Only the saved variables of threads idle past a cutoff (THREADLAB_RETENTION_STATE), leaving their files: a
 * pickled session can hold more than the files do (credentials typed into a variable), so it may be kept
 * for less time.
 */
export class StateRetention implements RetentionSource {
  readonly name = 'saved state';

  constructor(private readonly options: FilesRetentionOptions) {}

  async purgeThread(key: string): Promise<PurgedItem[]> {
    return this.removeState(this.options.nameOf(key), key);
  }

  /** A live session's variables are in its container and saved back on recycle: `idle.keep` leaves them to it. */
  async purgeIdle(cutoffMs: number, idle?: IdleOptions): Promise<PurgedItem[]> {
    const { root, keyOf } = this.options;
    return purgeIdleDirs(root, {
      cutoffMs,
      idle,
      look: async (name) => {
        const stateDir = join(root, name, STATE_DIR);
        const info = await lstat(stateDir).catch(() => undefined);
        return info?.isDirectory() ? tallyIfThere(stateDir) : undefined;
      },
      remove: async (name) => this.removeState(name, (await keyOf?.(name)) ?? name),
    });
  }

  private async removeState(name: string, thread: string): Promise<PurgedItem[]> {
    const stateDir = join(this.options.root, name, STATE_DIR);
    const t = await tally(stateDir).catch(() => undefined);
    if (!t) return [];
    await rm(stateDir, { recursive: true, force: true });
    return [{ what: 'state', thread, files: t.files, bytes: t.bytes }];
  }
}

/** The host copies of threads' files with their saved state in THREADLAB_DATA_DIR, as `threadlab purge` removes them. */
export function threadFilesRetention(dataDir: string, keyOf?: FilesRetentionOptions['keyOf']): FilesRetention {
  return new FilesRetention({ root: threadFilesDir(dataDir), nameOf: threadHash, ...(keyOf ? { keyOf } : {}) });
}

/** Threads' saved variables alone in THREADLAB_DATA_DIR, as the timed sweep ages them (THREADLAB_RETENTION_STATE). */
export function savedStateRetention(dataDir: string): StateRetention {
  return new StateRetention({ root: threadFilesDir(dataDir), nameOf: threadHash });
}

/**
 * Deletes the host copies of sessions' files (under `root`, the sandbox's data directory) that nobody touched
 * for `maxAgeMs` (THREADLAB_FILES_TTL_MS), except those `keep` names (live sessions). Returns the names removed.
 */
export async function pruneMirrors(
  root: string,
  options: { maxAgeMs: number; keep: (name: string) => boolean; nowMs?: number },
): Promise<string[]> {
  const files = new FilesRetention({ root, nameOf: (name) => name });
  const removed = await files.purgeIdle((options.nowMs ?? Date.now()) - options.maxAgeMs, { keep: options.keep });
  return [...new Set(removed.map((item) => item.thread))];
}
