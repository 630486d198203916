import { lstat, readdir, rm } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { IdleOptions, PurgedItem, RetentionSource } from './retention.js';

/** The saved variables' directory inside a thread's host copy (sandbox/session-state.ts STATE_DIR_PARTS). */
const STATE_DIR = join('.threadlab', 'state');

/** Directories deeper than this are not walked (a hostile tree): removed with their parent, not counted. */
const MAX_WALK_DEPTH = 32;

interface Tally {
  files: number;
  bytes: number;
  stateFiles: number;
  stateBytes: number;
  newestMs: number;
}

/** Counts a host copy's files (links are not followed), its saved state apart, and its newest change. */
async function tally(root: string): Promise<Tally> {
  const t: Tally = { files: 0, bytes: 0, stateFiles: 0, stateBytes: 0, newestMs: (await lstat(root)).mtimeMs };
  const walk = async (dir: string, depth: number): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      const info = await lstat(full);
      t.newestMs = Math.max(t.newestMs, info.mtimeMs);
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

export interface FilesRetentionOptions {
  /** `<dataDir>/sandbox-files`: one directory per thread, named by `nameOf(key)`. */
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
 * The host copies of threads' files, with their saved variables (`.threadlab/state`) inside: removing a
 * thread's directory removes both, and the report counts them apart.
 */
export class FilesRetention implements RetentionSource {
  readonly name = 'thread files and saved state';

  constructor(private readonly options: FilesRetentionOptions) {}

  async purgeThread(key: string): Promise<PurgedItem[]> {
    const dir = join(this.options.root, this.options.nameOf(key));
    const t = await tally(dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (!t) return [];
    await rm(dir, { recursive: true, force: true });
    return itemsOf(key, t);
  }

  async purgeIdle(cutoffMs: number, idle: IdleOptions = {}): Promise<PurgedItem[]> {
    const removed: PurgedItem[] = [];
    let threads = 0;
    for (const entry of await readdir(this.options.root, { withFileTypes: true }).catch(() => [])) {
      if (!entry.isDirectory() || idle.keep?.(entry.name)) continue;
      if (threads >= (idle.maxThreads ?? Infinity)) break;
      const dir = join(this.options.root, entry.name);
      const t = await tally(dir);
      if (t.newestMs >= cutoffMs) continue;
      await rm(dir, { recursive: true, force: true });
      threads += 1;
      removed.push(...itemsOf((await this.options.keyOf?.(entry.name)) ?? entry.name, t));
    }
    return removed;
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

  async purgeIdle(cutoffMs: number, idle: IdleOptions = {}): Promise<PurgedItem[]> {
    const removed: PurgedItem[] = [];
    let threads = 0;
    for (const entry of await readdir(this.options.root, { withFileTypes: true }).catch(() => [])) {
      // A live session's variables are in its container and saved back on recycle: left to it.
      if (!entry.isDirectory() || idle.keep?.(entry.name)) continue;
      if (threads >= (idle.maxThreads ?? Infinity)) break;
      const stateDir = join(this.options.root, entry.name, STATE_DIR);
      const info = await lstat(stateDir).catch(() => undefined);
      if (!info?.isDirectory()) continue;
      const t = await tally(stateDir);
      if (t.newestMs >= cutoffMs) continue;
      threads += 1;
      removed.push(...(await this.removeState(entry.name, (await this.options.keyOf?.(entry.name)) ?? entry.name)));
    }
    return removed;
  }

  private async removeState(name: string, thread: string): Promise<PurgedItem[]> {
    const stateDir = join(this.options.root, name, STATE_DIR);
    const t = await tally(stateDir).catch(() => undefined);
    if (!t) return [];
    await rm(stateDir, { recursive: true, force: true });
    return [{ what: 'state', thread, files: t.files, bytes: t.bytes }];
  }
}
