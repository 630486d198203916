import {
  closeSync,
  fchmodSync,
  fstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../../logger.js';
import type { AuditLog } from './audit-log.js';
import { formatAuditLine, type AuditRecord } from './audit-record.js';

/** Options of {@link FileAuditLog}. */
export interface FileAuditLogOptions {
  /** The current file; rotated ones are `<path>.1` (newest) … `<path>.<keepFiles>` (oldest). */
  path: string;
  /** Size at which the file is rotated, in bytes (THREADLAB_AUDIT_MAX_MB). */
  maxBytes: number;
  /** Rotated files kept besides the current one (THREADLAB_AUDIT_FILES); older ones are deleted. */
  keepFiles: number;
  /** The operational log: rotation that drops a file and write failures are said there. */
  logger: Logger;
}

/** The paths of an audit file's rotated files, oldest first, then the current one. */
export function auditFilesOldestFirst(path: string, keepFiles: number): string[] {
  const rotated = Array.from({ length: keepFiles }, (_, i) => `${path}.${keepFiles - i}`);
  return [...rotated, path];
}

/**
 * Audit lines appended to a file that only the bot's user can read (created 0600 in a 0700
 * directory; a file found with wider permissions is narrowed). Bounded on disk: past `maxBytes` the
 * file is rotated, and at most `keepFiles` rotated files are kept, so the trail takes at most
 * `(keepFiles + 1) × maxBytes` (plus one line). Dropping the oldest file is logged with its size.
 * Writes are synchronous appends (O_APPEND: one line per write, whole, even with several processes);
 * a file renamed or deleted from outside (logrotate, another process's rotation) is reopened.
 */
export class FileAuditLog implements AuditLog {
  private fd: number | undefined;
  private ino = 0;
  private bytes = 0;
  /** Lines that could not be written since the last success, for the error log line. */
  private lost = 0;

  constructor(private readonly options: FileAuditLogOptions) {}

  write(record: AuditRecord): void {
    const line = Buffer.from(formatAuditLine(record), 'utf8');
    try {
      const fd = this.open();
      if (this.bytes > 0 && this.bytes + line.length > this.options.maxBytes) this.rotate();
      writeSync(this.fd ?? fd, line);
      this.bytes += line.length;
      if (this.lost > 0) this.options.logger.warn({ lostLines: this.lost }, 'audit log writable again');
      this.lost = 0;
    } catch (err) {
      this.lost += 1;
      this.close();
      // Every lost line is said, with the running count, so a gap in the trail is never silent.
      this.options.logger.error(
        { err, path: this.options.path, kind: record.kind, lostLines: this.lost },
        'audit line could not be written; check the disk and THREADLAB_AUDIT_LOG',
      );
    }
  }

  /** Closes the file; the next write opens it again. */
  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      closeSync(fd);
    } catch {
      // Already closed by a failure; nothing to release.
    }
  }

  /** The open file, reopened when the path no longer names it. */
  private open(): number {
    if (this.fd !== undefined && this.stillCurrent()) return this.fd;
    this.close();
    const { path } = this.options;
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const fd = openSync(path, 'a', 0o600);
    // openSync's mode applies only to a new file: an existing one keeps what it had, so narrow it.
    fchmodSync(fd, 0o600);
    const stat = fstatSync(fd);
    this.fd = fd;
    this.ino = stat.ino;
    this.bytes = stat.size;
    return fd;
  }

  private stillCurrent(): boolean {
    try {
      return statSync(this.options.path).ino === this.ino;
    } catch {
      return false;
    }
  }

  private rotate(): void {
    const { path, keepFiles, logger } = this.options;
    this.close();
    const oldest = `${path}.${keepFiles}`;
    const dropped = sizeOf(oldest);
    if (dropped !== undefined) {
      rmSync(oldest, { force: true });
      logger.warn(
        { path: oldest, bytes: dropped },
        'oldest audit file deleted by rotation; raise THREADLAB_AUDIT_FILES or THREADLAB_AUDIT_MAX_MB, or ship the trail elsewhere, to keep more',
      );
    }
    for (let i = keepFiles - 1; i >= 1; i -= 1) {
      if (sizeOf(`${path}.${i}`) !== undefined) renameSync(`${path}.${i}`, `${path}.${i + 1}`);
    }
    renameSync(path, `${path}.1`);
    this.open();
  }
}

function sizeOf(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}
