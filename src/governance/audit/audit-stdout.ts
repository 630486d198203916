import pino from 'pino';
import type { AuditLog } from './audit-log.js';
import { formatAuditLine, type AuditRecord } from './audit-record.js';

/**
 * Audit lines on stdout (THREADLAB_AUDIT_LOG=stdout), for a collector that reads the process's output;
 * the operational log is on stderr, so the two stay apart. Synchronous writes (SonicBoom, which waits
 * out a full pipe): a slow reader slows the bot instead of growing an unbounded buffer.
 */
export class StdoutAuditLog implements AuditLog {
  private readonly out = pino.destination({ dest: 1, sync: true });

  write(record: AuditRecord): void {
    try {
      this.out.write(formatAuditLine(record));
    } catch {
      // stdout closed: the process's supervisor is gone too, and there is nowhere left to say it.
    }
  }
}
