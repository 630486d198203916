import { threadHash, type AuditRecord } from '../../src/governance/audit/audit-record.js';

/** A valid egress audit record of `user` at `atMs` (`bytesUp` set to tell lines apart). */
export function egressRecord(user: string, atMs: number, bytesUp = 1): AuditRecord {
  return {
    v: 1,
    ts: new Date(atMs).toISOString(),
    kind: 'egress',
    user,
    platform: null,
    workspace: null,
    channel: null,
    thread: null,
    threadHash: threadHash('k'),
    job: null,
    destination: 'pypi.org:443',
    bytesUp,
    bytesDown: 0,
    verdict: 'allowed',
    reason: null,
  };
}
