import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import type { Logger } from '../src/logger.js';
import { dataDirLayout } from '../src/domain/data-dir.js';

/**
 * Where a bot's warm pool keeps what it learned about demand in THREADLAB_DATA_DIR, beside the threads' files
 * (`threadFilesDir`, sandbox/mirror-retention.ts). One file per data directory, not one per process: instance
 * ids are new with every process, so a restarted process would never find a file named by its old one, and
 * the processes that share a data directory (`--role worker` several times) share a queue, so each sees about
 * the same share of the demand. The last writer's record is therefore a fair estimate for any of them, where
 * the union of all would give each worker the whole bot's demand. A process writes only when its own demand
 * changed (`PoolMemory`), so an idle worker stopping does not wipe a busy one's record.
 */
export function poolDemandFile(dataDir: string): string {
  return dataDirLayout(dataDir).poolDemand;
}

/** Marks the file as ours: anything without it is left alone (and not read). */
const KIND = 'threadlab.pool-demand';
/**
 * Larger files are not read: the most the pool keeps (THREADLAB_SANDBOX_POOL_MAX ≤ 256 entries) is about 4 KiB.
 */
export const MAX_DEMAND_FILE_BYTES = 64 * 1024;
/** Clocks of the processes sharing a data directory may differ this much: later starts are refused. */
export const FUTURE_SKEW_MS = 5_000;

const fileSchema = z
  .object({
    kind: z.literal(KIND),
    version: z.literal(1),
    /** When recent sessions began, epoch ms, oldest first. */
    sessionStartsMs: z.array(z.number().int().nonnegative()).max(4096),
  })
  .strict();

export interface ReadDemandOptions {
  path: string;
  /** Entries kept at most (THREADLAB_SANDBOX_POOL_MAX): a longer list keeps its newest. */
  maxEntries: number;
  nowMs: number;
  logger: Logger;
}

/** The file's bytes, or undefined (with the reason logged) when it is absent, too large or not a plain file. */
async function readBounded(path: string, logger: Logger): Promise<string | undefined> {
  let handle;
  try {
    // No symlinks followed, and a FIFO put in its place does not block the start.
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    logger.warn({ err, path }, 'warm pool: cannot read its demand file; the pool starts at its size');
    return undefined;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      logger.warn({ path }, 'warm pool: its demand file is not a plain file; ignored, the pool starts at its size');
      return undefined;
    }
    // Read at most one byte past the limit, whatever the size said: the file may grow meanwhile.
    const buffer = Buffer.alloc(MAX_DEMAND_FILE_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > MAX_DEMAND_FILE_BYTES) {
      logger.warn(
        { path, maxBytes: MAX_DEMAND_FILE_BYTES },
        'warm pool: its demand file is larger than any it writes; ignored, the pool starts at its size',
      );
      return undefined;
    }
    return buffer.subarray(0, bytesRead).toString('utf8');
  } catch (err) {
    logger.warn({ err, path }, 'warm pool: cannot read its demand file; the pool starts at its size');
    return undefined;
  } finally {
    await handle.close();
  }
}

/**
 * Reads the session starts a pool saved, treating the file as hostile: a missing file is no memory; one that
 * is unreadable, too large, not JSON or not ours is ignored with a warning; starts in the future (beyond
 * {@link FUTURE_SKEW_MS}) are dropped with a warning, and only the newest `maxEntries` are kept. Never throws.
 * Returns the starts oldest first; ageing them by the pool's window is the pool's business.
 */
export async function readPoolDemand(options: ReadDemandOptions): Promise<number[]> {
  const { path, logger, nowMs } = options;
  const text = await readBounded(path, logger);
  if (text === undefined) return [];
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    logger.warn({ path }, 'warm pool: its demand file is not valid JSON; ignored, the pool starts at its size');
    return [];
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    logger.warn(
      { path, issue: parsed.error.issues[0]?.message },
      'warm pool: its demand file is not one it writes; ignored, the pool starts at its size',
    );
    return [];
  }
  const starts = parsed.data.sessionStartsMs.toSorted((a, b) => a - b);
  const future = starts.filter((t) => t > nowMs + FUTURE_SKEW_MS);
  if (future.length > 0) {
    logger.warn(
      { path, count: future.length, latestMs: future[future.length - 1] },
      'warm pool: its demand file holds session starts in the future; those are ignored',
    );
  }
  const past = starts.filter((t) => t <= nowMs + FUTURE_SKEW_MS).map((t) => Math.min(t, nowMs));
  const maxEntries = Math.max(0, options.maxEntries);
  if (past.length > maxEntries) {
    logger.warn(
      { path, count: past.length, maxEntries },
      'warm pool: its demand file holds more session starts than THREADLAB_SANDBOX_POOL_MAX; the newest are used',
    );
  }
  return maxEntries === 0 ? [] : past.slice(-maxEntries);
}

/** A temporary file older than this was left by a write that never finished (a crash): no write takes so long. */
export const STALE_TEMP_MS = 60_000;

/**
 * Removes the temporary files of writes that never finished (a process killed between write and rename), so
 * crashes do not pile them up; those of a write in flight in another process are younger and stay. Never throws.
 */
export async function removeStaleTemps(path: string, nowMs: number): Promise<void> {
  const dir = dirname(path);
  const prefix = `${basename(path)}.`;
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.startsWith(prefix) && n.endsWith('.tmp'))) {
    const info = await lstat(join(dir, name)).catch(() => undefined);
    if (info?.isFile() && info.mtimeMs < nowMs - STALE_TEMP_MS)
      await rm(join(dir, name), { force: true }).catch(() => {});
  }
}

/** Writes the starts atomically (a temporary file renamed over the old one): readers see the old or the new. */
export async function writePoolDemand(path: string, sessionStartsMs: readonly number[]): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  const body = JSON.stringify({ kind: KIND, version: 1, sessionStartsMs });
  try {
    await writeFile(tmp, `${body}\n`, { mode: 0o600, flag: 'wx' });
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}
