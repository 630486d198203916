import type { FeedbackVerdict } from '../../domain/feedback.js';
import { commonFields } from './audit-common.js';
import { boundString, type AuditFeedbackRecord } from './audit-record.js';

/** A verdict as its audit line records it: who, where, which answer of which model, and the comment. */
export interface GivenFeedback {
  threadKey: string;
  userId: string;
  verdict: FeedbackVerdict;
  previous?: FeedbackVerdict;
  /** From the answer ledger. */
  model: string;
  /** The id of the message the answer answered (the ledger's key). */
  questionId: string;
  answerMessageId?: string;
  /** Already bounded (boundComment). */
  comment?: string;
}

/** The `feedback` line of a verdict (audit-record.ts); its `user` is the person who clicked, not the asker. */
export function feedbackRecord(given: GivenFeedback): AuditFeedbackRecord {
  const common = commonFields(given.threadKey, given.userId);
  return {
    ...common,
    // A click happens outside any job: whoever's job scope is current must not lend its user.
    user: boundString(given.userId),
    job: null,
    kind: 'feedback',
    verdict: given.verdict,
    previous: given.previous ?? null,
    model: boundString(given.model),
    answer: boundString(given.questionId),
    answerMessage: given.answerMessageId === undefined ? null : boundString(given.answerMessageId),
    comment: given.comment ?? null,
  };
}
