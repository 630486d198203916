import type { ApprovalDecision, ApprovalLanguage } from '../../ports/approval.js';
import { commonFields } from './audit-common.js';
import { boundString, sha256Hex, type AuditApprovalRecord } from './audit-record.js';

/** What an approval request's audit line is made of. */
export interface ApprovalAuditFacts {
  threadKey: string;
  askerId: string;
  language: ApprovalLanguage;
  code: string;
  /** `undefined` when the request was refused before it had an id. */
  approvalId: string | undefined;
  /** How it ended; `undefined` when the turn was stopped while it waited. */
  decision: ApprovalDecision | undefined;
  waitedMs: number;
}

/** The `approval` line of one request (audit-record.ts): who asked, how it ended and who decided. */
export function approvalRecord(facts: ApprovalAuditFacts): AuditApprovalRecord {
  const { decision } = facts;
  const pressedBy = decision?.kind === 'run' || decision?.kind === 'skip' ? decision.by : undefined;
  const byAsker = pressedBy === facts.askerId;
  return {
    ...commonFields(facts.threadKey, facts.askerId),
    kind: 'approval',
    decision: decision?.kind ?? 'cancelled',
    by: pressedBy === undefined ? null : byAsker ? 'asker' : 'admin',
    admin: pressedBy === undefined || byAsker ? null : boundString(pressedBy),
    waitedMs: facts.waitedMs,
    language: facts.language,
    codeSha256: sha256Hex(facts.code),
    codeBytes: Buffer.byteLength(facts.code, 'utf8'),
    approvalId: facts.approvalId ?? null,
  };
}
