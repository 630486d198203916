import { boundComment, type FeedbackClick, type FeedbackOutcome, type FeedbackVerdict } from '../domain/feedback.js';
import { toThreadlabError } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import type { AnsweredMessage, ConversationStore } from '../ports/conversation-store.js';
import type { AuditLog } from '../governance/audit/audit-log.js';
import { feedbackRecord } from '../governance/audit/audit-feedback.js';
import { VerdictMemory } from './verdict-memory.js';

/** Where verdicts are counted (`threadlab_feedback_total{verdict,model}` in src/ops/metrics.ts). */
export interface FeedbackMetrics {
  feedback(verdict: FeedbackVerdict, model: string): void;
}

export interface FeedbackDeskOptions {
  /** The conversation store the answer ledger writes (src/core/answer-ledger.ts): which answer, which model. */
  store: ConversationStore;
  audit: AuditLog;
  metrics?: FeedbackMetrics;
  logger: Logger;
  /** @defaultValue MAX_REMEMBERED_VERDICTS (20,000) */
  maxRememberedVerdicts?: number;
  /**
   * How long a click on an answer the ledger does not hold yet waits for it, in ms: the ledger is written once the
   * platform has answered for every message of the answer, so a click on its first message can come first. Kept
   * well under Discord's 3 seconds to answer an interaction.
   * @defaultValue LEDGER_GRACE_MS (1,500)
   */
  ledgerGraceMs?: number;
}

/** See {@link FeedbackDeskOptions.ledgerGraceMs}. */
export const LEDGER_GRACE_MS = 1_500;
/** How often the ledger is read again within the grace, in ms. */
const LEDGER_POLL_MS = 200;

/**
 * Records 👍/👎 on the model's answers. The answer is looked up in the thread's answer ledger (its last 100
 * answers, kept as long as the thread's files): the model is the one the ledger recorded when the answer was
 * posted, never one a click claims. Each person has one verdict per answer: the same verdict again is
 * acknowledged and not counted again (unless it brings a comment, which is written), a different one replaces it.
 */
export class FeedbackDesk {
  private readonly memory: VerdictMemory;

  constructor(private readonly options: FeedbackDeskOptions) {
    this.memory = new VerdictMemory(options.maxRememberedVerdicts);
  }

  async give(click: FeedbackClick): Promise<FeedbackOutcome> {
    const log = this.options.logger.child({ thread: click.threadKey, answer: click.answerRef });
    let answer: AnsweredMessage | undefined;
    try {
      answer = await this.lookUp(click);
    } catch (err) {
      log.warn({ err: toThreadlabError(err) }, 'could not read the answer ledger for feedback');
      return {
        recorded: false,
        reason: 'unavailable',
        message: 'Your feedback could not be recorded just now. Please try again.',
      };
    }
    if (!answer?.model) {
      log.info('feedback on an answer the ledger does not hold');
      return {
        recorded: false,
        reason: 'unknown_answer',
        message:
          'This answer is no longer on record (answers are kept as long as the thread’s files), so feedback on it cannot be counted.',
      };
    }
    const comment = boundComment(click.comment);
    const key = `${click.threadKey}\n${answer.questionId}\n${click.user.id}`;
    const previous = this.memory.set(key, click.verdict);
    const repeated = previous === click.verdict;
    if (!repeated || comment) {
      this.options.audit.write(
        feedbackRecord({
          threadKey: click.threadKey,
          userId: click.user.id,
          verdict: click.verdict,
          ...(previous ? { previous } : {}),
          model: answer.model,
          questionId: answer.questionId,
          ...(answer.answerIds[0] ? { answerMessageId: answer.answerIds[0] } : {}),
          ...(comment ? { comment } : {}),
        }),
      );
    }
    if (!repeated) this.options.metrics?.feedback(click.verdict, answer.model);
    log.info({ verdict: click.verdict, previous, model: answer.model, comment: Boolean(comment) }, 'feedback recorded');
    return { recorded: true, model: answer.model, ...(previous ? { previous } : {}) };
  }

  /** The clicked answer with its model, read again within the grace while the ledger does not hold it yet. */
  private async lookUp(click: FeedbackClick): Promise<AnsweredMessage | undefined> {
    const deadline = Date.now() + (this.options.ledgerGraceMs ?? LEDGER_GRACE_MS);
    for (;;) {
      const answer = findAnswer((await this.options.store.get(click.threadKey))?.answers ?? [], click.answerRef);
      if (answer?.model || Date.now() >= deadline) return answer;
      await new Promise((resolve) => setTimeout(resolve, LEDGER_POLL_MS));
    }
  }
}

/** The answer `ref` names: the message it answered, or one of its own messages. */
export function findAnswer(answers: readonly AnsweredMessage[], ref: string): AnsweredMessage | undefined {
  return answers.find((a) => a.questionId === ref || a.answerIds.includes(ref));
}
