import type { InboundMessage } from '../domain/messages.js';
import { toThreadlabError } from '../domain/errors.js';
import type { Reply } from '../domain/reply.js';
import type { Logger } from '../logger.js';
import type { PlatformAdapter, PostedReply } from '../ports/platform-adapter.js';
import type { AnsweredMessage, ConversationRecord, ConversationStore } from '../ports/conversation-store.js';

/** Answered messages remembered per thread; edits of older ones are ignored. */
export const MAX_ANSWERED_MESSAGES = 100;

/** What to do with an edited message when its job runs. */
export type EditPlan =
  | { action: 'ignore'; reason: 'not_answered' | 'not_author' | 'unchanged' }
  /** Run it; `inPlace` is the earlier answer to replace when it is the thread's latest exchange. */
  | { action: 'rerun'; original: AnsweredMessage; inPlace?: PostedReply };

export interface AnswerLedgerOptions {
  store: ConversationStore;
  /** How long the thread's record is kept after this write, in ms (the thread's files live as long). */
  ttlMs: number;
  /** @defaultValue {@link MAX_ANSWERED_MESSAGES} */
  maxAnswers?: number;
  logger: Logger;
}

/**
 * Which answer belongs to which message, kept in the thread's conversation record: an edit of a message the
 * bot answered re-runs it and replaces the answer in place when that exchange is the thread's latest,
 * else answers anew saying which message it re-ran. The queue runs one job per thread at a time, so the
 * record is read and written by one job at a time.
 */
export class AnswerLedger {
  private readonly maxAnswers: number;

  constructor(private readonly options: AnswerLedgerOptions) {
    this.maxAnswers = options.maxAnswers ?? MAX_ANSWERED_MESSAGES;
  }

  /** Decides on an edit: decided when it runs, so an edit sent while the original ran sees its answer. */
  async plan(threadKey: string, message: InboundMessage): Promise<EditPlan | undefined> {
    const edit = message.edit;
    if (!edit) return undefined;
    const answers = (await this.options.store.get(threadKey))?.answers ?? [];
    const index = answers.findIndex((a) => a.questionId === edit.originalId);
    const original = answers[index];
    if (!original) return { action: 'ignore', reason: 'not_answered' };
    if (original.userId !== message.user.id) return { action: 'ignore', reason: 'not_author' };
    if (original.text === message.text) return { action: 'ignore', reason: 'unchanged' };
    const latest = index === answers.length - 1 && original.answerIds.length > 0;
    return latest
      ? { action: 'rerun', original, inPlace: { messageIds: original.answerIds } }
      : { action: 'rerun', original };
  }

  /**
   * Posts the answer to a job's message: in place for an edit of the latest exchange (when the adapter
   * can), else anew, with a line saying which message was re-run; then records where it landed.
   */
  async deliver(options: {
    adapter: PlatformAdapter;
    threadKey: string;
    message: InboundMessage;
    reply: Reply;
    plan?: EditPlan | undefined;
    /** False posts even an edit's answer anew (a failed re-run never replaces the answer that stood). @defaultValue true */
    inPlace?: boolean;
  }): Promise<void> {
    const { adapter, message, plan } = options;
    let posted: PostedReply | void = undefined;
    const inPlace = plan?.action === 'rerun' && options.inPlace !== false ? plan.inPlace : undefined;
    if (inPlace && adapter.updateReply) {
      const reply = { ...options.reply, text: `_Re-ran after your edit._\n\n${options.reply.text}` };
      try {
        posted = await adapter.updateReply(message, inPlace, reply);
      } catch (err) {
        // The earlier answer may be gone (deleted by someone): the new one is posted instead of lost.
        this.options.logger.warn(
          { err: toThreadlabError(err) },
          'could not update the answer in place; posting it anew',
        );
      }
    }
    if (!posted) {
      const note = plan?.action === 'rerun' ? `${rerunNote(plan.original.text, message.text)}\n\n` : '';
      posted = await adapter.reply(message, { ...options.reply, text: `${note}${options.reply.text}` });
    }
    if (!posted || posted.messageIds.length === 0) return;
    const questionId = message.edit?.originalId ?? message.id;
    await this.record(options.threadKey, {
      questionId,
      userId: message.user.id,
      text: message.text,
      answerIds: posted.messageIds,
      atMs: Date.now(),
      ...(options.reply.feedback ? { model: options.reply.feedback.model } : {}),
    });
  }

  /** Makes `answered` the thread's latest exchange, forgetting the oldest beyond the bound. */
  private async record(threadKey: string, answered: AnsweredMessage): Promise<void> {
    const { store, ttlMs } = this.options;
    const now = Date.now();
    const record: ConversationRecord = (await store.get(threadKey)) ?? {
      history: [],
      createdAtMs: now,
      updatedAtMs: now,
      trimmedEntries: 0,
    };
    const kept = (record.answers ?? []).filter((a) => a.questionId !== answered.questionId);
    const answers = [...kept, answered].slice(-this.maxAnswers);
    await store.put(threadKey, { ...record, answers, updatedAtMs: now }, ttlMs);
  }
}

/** The line above an answer to an edit of an older message: which message was re-run, by its first line. */
export function rerunNote(previousText: string, editedText: string): string {
  const first = (editedText.split('\n').find((l) => l.trim() !== '' && !l.trim().startsWith('```')) ?? '').trim();
  const quoted = first.length > 80 ? `${first.slice(0, 79)}…` : first;
  const before = previousText
    .split('\n')
    .find((l) => l.trim() !== '' && !l.trim().startsWith('```'))
    ?.trim();
  const shown = quoted || before || 'your message';
  return `_Re-ran your edited message “${shown.replace(/[_*`]/g, '')}” (an earlier message, so this is a new answer)._`;
}
