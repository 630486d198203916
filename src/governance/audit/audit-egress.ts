import type { EgressAuditRecord } from '../../egress/egress-record.js';
import { commonFields } from './audit-common.js';
import type { AuditEgressRecord } from './audit-record.js';
import { boundString } from './audit-record.js';

/** The egress gateway's record as an audit line: its thread is already hashed, so `thread` is null. */
export function egressAuditLine(record: EgressAuditRecord): AuditEgressRecord {
  return {
    ...commonFields(null, record.user),
    // The gateway knows the user of the run itself; a scope there would be another job's.
    user: record.user === undefined ? null : boundString(record.user),
    job: null,
    threadHash: record.thread,
    kind: 'egress',
    destination: boundString(record.destination),
    bytesUp: record.bytesUp,
    bytesDown: record.bytesDown,
    verdict: record.verdict,
    reason: record.reason === undefined ? null : boundString(record.reason),
  };
}
