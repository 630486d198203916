import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

async function newestMtimeMs(dir: string, depth = 0): Promise<number> {
  let newest = (await stat(dir)).mtimeMs;
  if (depth > 8) return newest;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    const mtime = entry.isDirectory() ? await newestMtimeMs(full, depth + 1) : (await stat(full)).mtimeMs;
    newest = Math.max(newest, mtime);
  }
  return newest;
}

/**
 * Deletes the host copies of sessions' files that nobody touched for `maxAgeMs`
 * (THREADLAB_FILES_TTL_MS), except those `keep` names (live sessions). Returns the names removed.
 */
export async function pruneMirrors(
  root: string,
  options: { maxAgeMs: number; keep: (name: string) => boolean; nowMs?: number },
): Promise<string[]> {
  const now = options.nowMs ?? Date.now();
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  const removed: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory() || options.keep(entry.name)) continue;
    const full = join(root, entry.name);
    const newest = await newestMtimeMs(full).catch(() => now);
    if (now - newest < options.maxAgeMs) continue;
    await rm(full, { recursive: true, force: true });
    removed.push(entry.name);
  }
  return removed;
}
