import { createReadStream } from 'node:fs';
import { parseAuditLine, threadHash, type AuditLine } from './audit-record.js';

/** What `threadlab audit` keeps: every given condition must hold. */
export interface AuditFilter {
  user?: string;
  /** A thread key: matches its runs and model calls, and its egress lines by the key's hash. */
  thread?: string;
  /** Lines at or after this time, epoch ms. */
  sinceMs?: number;
  kind?: string;
}

/** Longest line read, in bytes; a longer one (not ours: ours are bounded) is skipped and counted. */
export const MAX_AUDIT_LINE_BYTES = 256 * 1024;

/** Whether a line passes the filter. */
export function matchesAudit(line: AuditLine, filter: AuditFilter): boolean {
  if (filter.user !== undefined && line.user !== filter.user) return false;
  if (filter.kind !== undefined && line.kind !== filter.kind) return false;
  if (filter.thread !== undefined && line.thread !== filter.thread && line.threadHash !== threadHash(filter.thread))
    return false;
  if (filter.sinceMs !== undefined && !(Date.parse(line.ts) >= filter.sinceMs)) return false;
  return true;
}

/** One line read: an audit record, or a line that was not one (too long, not JSON, another format). */
export type ReadLine = { ok: true; line: AuditLine } | { ok: false };

/**
 * The lines of audit files in order, a chunk at a time: memory stays within one line
 * ({@link MAX_AUDIT_LINE_BYTES}) whatever the files' sizes. A missing file is skipped (rotation may
 * not have made it yet).
 */
export async function* readAuditFiles(paths: readonly string[]): AsyncGenerator<ReadLine> {
  for (const path of paths) {
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let overlong = false;
    try {
      for await (const chunk of createReadStream(path)) {
        let data = chunk as Buffer;
        let newline = data.indexOf(0x0a);
        while (newline !== -1) {
          const head = data.subarray(0, newline);
          if (overlong || pendingBytes + head.length > MAX_AUDIT_LINE_BYTES) yield { ok: false };
          else yield toLine(Buffer.concat([...pending, head]).toString('utf8'));
          pending = [];
          pendingBytes = 0;
          overlong = false;
          data = data.subarray(newline + 1);
          newline = data.indexOf(0x0a);
        }
        if (overlong) continue;
        if (pendingBytes + data.length > MAX_AUDIT_LINE_BYTES) {
          overlong = true;
          pending = [];
          pendingBytes = 0;
        } else if (data.length > 0) {
          pending.push(Buffer.from(data));
          pendingBytes += data.length;
        }
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    // A last line without its newline: a write cut short, or one in progress.
    if (overlong) yield { ok: false };
    else if (pendingBytes > 0) yield toLine(Buffer.concat(pending).toString('utf8'));
  }
}

function toLine(text: string): ReadLine {
  if (text.trim() === '') return { ok: false };
  const line = parseAuditLine(text);
  return line ? { ok: true, line } : { ok: false };
}

/** `--since`: an ISO 8601 date or time, or a duration back from now (`90m`, `12h`, `7d`). */
export function parseSince(text: string, nowMs: number): number | undefined {
  const duration = /^(\d{1,9})(s|m|h|d)$/.exec(text.trim());
  if (duration) {
    const unitMs = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[duration[2] as 's' | 'm' | 'h' | 'd'];
    return nowMs - Number(duration[1]) * unitMs;
  }
  if (!/^\d{4}-\d{2}-\d{2}/.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}
