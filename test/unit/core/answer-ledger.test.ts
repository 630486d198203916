import { describe, expect, it } from 'vitest';
import { AnswerLedger } from '../../../src/core/answer-ledger.js';
import type { InboundMessage } from '../../../src/domain/messages.js';
import { textReply, type Reply } from '../../../src/domain/reply.js';
import { createLogger } from '../../../src/logger.js';
import type { PostedReply } from '../../../src/ports/platform-adapter.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { RecordingAdapter } from '../../fakes/recording-adapter.js';

/** A recording adapter that says where its answers landed and records in-place updates. */
class PostingAdapter extends RecordingAdapter {
  readonly updates: { previous: PostedReply; reply: Reply }[] = [];
  failUpdates = false;
  private next = 0;

  override async reply(message: InboundMessage, reply: Reply): Promise<PostedReply> {
    await super.reply(message, reply);
    return { messageIds: [`a${(this.next += 1)}`] };
  }

  async updateReply(_message: InboundMessage, previous: PostedReply, reply: Reply): Promise<PostedReply> {
    if (this.failUpdates) throw new Error('message_not_found');
    this.updates.push({ previous, reply });
    return previous;
  }
}

const KEY = 'web:local:web:t1';
const logger = createLogger({ level: 'silent' });

function message(id: string, text: string, edit?: string, user = 'u1'): InboundMessage {
  return {
    id,
    thread: { platform: 'web', workspace: 'local', channel: 'web', thread: 't1' },
    user: { id: user },
    text,
    attachments: [],
    receivedAtMs: Date.now(),
    ...(edit ? { edit: { originalId: edit } } : {}),
  };
}

async function setup(maxAnswers?: number) {
  const store = new MemoryConversationStore();
  const ledger = new AnswerLedger({ store, ttlMs: 60_000, logger, ...(maxAnswers ? { maxAnswers } : {}) });
  const adapter = new PostingAdapter();
  const answer = async (m: InboundMessage, text = 'answer') => {
    const plan = await ledger.plan(KEY, m);
    if (plan?.action === 'ignore') return plan;
    await ledger.deliver({ adapter, threadKey: KEY, message: m, reply: textReply(text, 'answer'), plan });
    return plan;
  };
  return { store, ledger, adapter, answer };
}

describe('AnswerLedger', () => {
  it('an edit of the latest exchange updates its answer in place; of an older one, answers anew naming it', async () => {
    const { adapter, answer } = await setup();
    await answer(message('q1', 'first question'));
    await answer(message('q2', 'second question'));
    await answer(message('q2:e1', 'second question, fixed', 'q2'), 'new answer');
    expect(adapter.updates).toHaveLength(1);
    expect(adapter.updates[0]!.previous.messageIds).toEqual(['a2']);
    expect(adapter.updates[0]!.reply.text).toContain('Re-ran after your edit');

    await answer(message('q1:e1', 'first question, fixed', 'q1'), 'again');
    expect(adapter.updates).toHaveLength(1);
    expect(adapter.replies.at(-1)!.reply.text).toContain('Re-ran your edited message “first question, fixed”');
    // The re-answered message is now the latest exchange: editing it again updates that new answer.
    await answer(message('q1:e2', 'first question, fixed twice', 'q1'));
    expect(adapter.updates.at(-1)!.previous.messageIds).toEqual(['a3']);
  });

  it("ignores another user's edit, an unchanged text and a message it never answered", async () => {
    const { adapter, answer } = await setup();
    await answer(message('q1', 'question'));
    expect(await answer(message('q1:e1', 'question?', 'q1', 'intruder'))).toEqual({
      action: 'ignore',
      reason: 'not_author',
    });
    expect(await answer(message('q1:e2', 'question', 'q1'))).toEqual({ action: 'ignore', reason: 'unchanged' });
    expect(await answer(message('q9:e1', 'other', 'q9'))).toEqual({ action: 'ignore', reason: 'not_answered' });
    expect(adapter.replies).toHaveLength(1);
  });

  it('remembers at most maxAnswers answered messages: an edit of an older one is ignored', async () => {
    const { store, answer } = await setup(3);
    for (let i = 1; i <= 4; i += 1) await answer(message(`q${i}`, `question ${i}`));
    expect((await store.get(KEY))!.answers!.map((a) => a.questionId)).toEqual(['q2', 'q3', 'q4']);
    expect(await answer(message('q1:e1', 'question 1!', 'q1'))).toEqual({ action: 'ignore', reason: 'not_answered' });
  });

  it('posts anew, saying so, when the answer cannot be updated in place (deleted on the platform)', async () => {
    const { adapter, answer } = await setup();
    await answer(message('q1', 'question'));
    adapter.failUpdates = true;
    await answer(message('q1:e1', 'question, edited', 'q1'), 'second');
    expect(adapter.replies).toHaveLength(2);
    expect(adapter.replies[1]!.reply.text).toContain('Re-ran your edited message');
  });
});

describe('AnswerLedger and feedback', () => {
  it('remembers the model of a model answer, so a click on it is counted for that model; notices have none', async () => {
    const { store, ledger, adapter } = await setup();
    const reply = { ...textReply('the mean is 4.2', 'answer'), feedback: { model: 'qwen3:8b' } };
    await ledger.deliver({ adapter, threadKey: KEY, message: message('q1', 'mean?'), reply });
    await ledger.deliver({ adapter, threadKey: KEY, message: message('q2', 'files'), reply: textReply('No files.') });
    const answers = (await store.get(KEY))!.answers!;
    expect(answers.map((a) => [a.questionId, a.answerIds, a.model])).toEqual([
      ['q1', ['a1'], 'qwen3:8b'],
      ['q2', ['a2'], undefined],
    ]);
  });
});
