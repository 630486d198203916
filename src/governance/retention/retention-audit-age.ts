import { closeSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parseAuditLine } from '../audit/audit-record.js';
import { rewriteAuditFile } from './retention-audit.js';

/** What aging the audit trail removed. */
export interface AuditAging {
  /** Lines older than the cutoff dropped from files that also hold newer ones. */
  droppedLines: number;
  /** Rotated files whose every line was older than the cutoff, removed whole. */
  removedFiles: string[];
}

/**
 * An audit file and its rotated files found beside it (`<path>.1` newest … `<path>.N`), oldest first, then the
 * current one; every `<path>.<number>` counts, kept by an earlier, larger THREADLAB_AUDIT_FILES too.
 */
export async function auditFilesOf(path: string): Promise<string[]> {
  const name = basename(path);
  const rotated: { n: number; file: string }[] = [];
  for (const entry of await readdir(dirname(path)).catch(() => [] as string[])) {
    const match = /^\.(\d{1,6})$/.exec(entry.slice(name.length));
    if (entry.startsWith(name) && match) rotated.push({ n: Number(match[1]), file: join(dirname(path), entry) });
  }
  const current = statSync(path, { throwIfNoEntry: false }) ? [path] : [];
  return [...rotated.sort((a, b) => b.n - a.n).map((r) => r.file), ...current];
}

/** The time of a file's first audit line (lines are appended in time order), or undefined when it has none. */
function firstLineMs(file: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    // An audit line is bounded (audit-record.ts), well under this.
    const head = Buffer.alloc(64 * 1024);
    const text = head.subarray(0, readSync(fd, head, 0, head.length, 0)).toString('utf8');
    const record = parseAuditLine(text.split('\n', 1)[0] ?? '');
    return record ? Date.parse(record.ts) : undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Removes audit lines older than `cutoffMs` (THREADLAB_RETENTION_AUDIT): a rotated file last written before
 * the cutoff goes whole; a file whose first line is older is rewritten without the old lines (temp file and
 * rename, same mode, lines appended meanwhile kept; see rewriteAuditFile). A file whose first line is newer is
 * not read at all, so a sweep reads at most the files that hold something to drop.
 */
export async function ageAuditFiles(path: string, cutoffMs: number): Promise<AuditAging> {
  const aging: AuditAging = { droppedLines: 0, removedFiles: [] };
  for (const file of await auditFilesOf(path)) {
    if (file !== path) {
      // Checked and removed in one synchronous step: the bot's rotation (also synchronous) renames these
      // files, and must not slip a newer file under this name between the check and the removal.
      const info = statSync(file, { throwIfNoEntry: false });
      if (info && info.mtimeMs < cutoffMs) {
        rmSync(file, { force: true });
        aging.removedFiles.push(file);
        continue;
      }
    }
    const first = firstLineMs(file);
    if (first === undefined || first >= cutoffMs) continue;
    aging.droppedLines += (await rewriteAuditFile(file, { dropBeforeMs: cutoffMs })).dropped;
  }
  return aging;
}
