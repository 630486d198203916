import type { Config } from '../../config/index.js';
import type { Logger } from '../../logger.js';
import { FileAuditLog } from './audit-file.js';
import { noAuditLog, type AuditLog } from './audit-log.js';
import { StdoutAuditLog } from './audit-stdout.js';

/** One log per file per process: two writers rotating the same file in one process would race. */
const open = new Map<string, AuditLog>();

/** The audit log THREADLAB_AUDIT_LOG names, shared by everything in this process that writes to it. */
export function auditLogFor(settings: Config['audit'], logger: Logger): AuditLog {
  if (settings.destination === 'off') return noAuditLog;
  const id = settings.destination === 'stdout' ? 'stdout' : `file:${settings.path}`;
  let log = open.get(id);
  if (!log) {
    log =
      settings.destination === 'stdout'
        ? new StdoutAuditLog()
        : new FileAuditLog({
            path: settings.path,
            maxBytes: settings.maxBytes,
            keepFiles: settings.keepFiles,
            logger: logger.child({ component: 'audit' }),
          });
    open.set(id, log);
  }
  return log;
}
