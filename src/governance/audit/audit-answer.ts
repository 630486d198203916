import type { AnsweredTurn } from '../../ports/governance.js';
import { commonFields } from './audit-common.js';
import { boundString, type AuditAnswerRecord } from './audit-record.js';

/** The `answer` line of a model turn (audit-record.ts): its outcome, spend and figure counts; no content. */
export function answerRecord(turn: AnsweredTurn): AuditAnswerRecord {
  const { figures } = turn;
  return {
    ...commonFields(turn.threadKey, turn.userId),
    kind: 'answer',
    outcome: turn.outcome,
    model: turn.model === undefined ? null : boundString(turn.model),
    runs: turn.runs,
    tokens: { prompt: turn.usage.promptTokens, completion: turn.usage.completionTokens },
    durationMs: turn.durationMs,
    figuresChecked: figures ? figures.checked : null,
    figuresNotFound: figures ? figures.notFound : null,
    figuresUnchecked: figures ? figures.unchecked : null,
    verificationRound: figures?.verificationRound ?? false,
  };
}
