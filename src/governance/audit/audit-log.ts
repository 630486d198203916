import type { AuditRecord } from './audit-record.js';

/**
 * Where audit lines go (THREADLAB_AUDIT_LOG): a private, rotated file, stdout, or nowhere. `write`
 * is synchronous and never throws: a line is on its way to the destination when it returns, so a
 * crash right after loses nothing, and a failing destination is reported in the operational log
 * instead of failing the run it records.
 */
export interface AuditLog {
  write(record: AuditRecord): void;
}

/** The audit log of THREADLAB_AUDIT_LOG=off: writes nothing. */
export const noAuditLog: AuditLog = { write: () => undefined };
