import { describe, expect, it } from 'vitest';
import { feedbackAck, feedbackBlock, mapFeedbackClick } from '../../../adapters/slack/feedback.js';
import { planReply } from '../../../adapters/slack/reply-blocks.js';
import { textReply } from '../../../src/domain/reply.js';
import { feedbackClick } from '../../fakes/fake-slack/feedback-payloads.js';

const click = (o: Partial<Parameters<typeof feedbackClick>[0]> = {}) =>
  feedbackClick({
    verdict: 'good',
    messageTs: '1700000000.000200',
    threadTs: '1700000000.000100',
    responseUrl: 'http://127.0.0.1:1/r',
    ...o,
  });

describe('Slack feedback buttons', () => {
  it('put a context_actions block with feedback_buttons on model answers only, on the last text message', () => {
    const answer = {
      ...textReply('The mean is 4.2.', 'answer'),
      feedback: { model: 'qwen3:8b' },
      footer: { durationMs: 900, runs: 1, model: 'qwen3:8b' },
    };
    const plan = planReply(answer);
    const blocks = plan.messages[0]!.blocks;
    expect(blocks.at(-1)).toEqual(feedbackBlock());
    const element = (feedbackBlock().elements as Record<string, unknown>[])[0]!;
    expect(element).toMatchObject({ type: 'feedback_buttons', action_id: 'threadlab_feedback' });
    expect(element.positive_button).toMatchObject({ text: { type: 'plain_text', text: '👍' }, value: 'good' });
    expect(element.negative_button).toMatchObject({ text: { type: 'plain_text', text: '👎' }, value: 'bad' });
    for (const reply of [textReply('Stopped.'), textReply('The model failed.', 'error'), textReply('6', 'answer')])
      expect(JSON.stringify(planReply(reply).messages)).not.toContain('context_actions');
  });

  it('map a recorded click to the thread, the clicked answer message and the verdict', () => {
    expect(mapFeedbackClick(click({ verdict: 'bad' }))).toEqual({
      threadKey: 'slack:T0TEAM:C0CHAN01:1700000000.000100',
      answerRef: '1700000000.000200',
      user: { id: 'U0USER01', name: 'ada' },
      verdict: 'bad',
      channel: 'C0CHAN01',
      threadTs: '1700000000.000100',
    });
  });

  it('drop a foreign value, another action, a payload without its message or team, and overlong ids', () => {
    expect(mapFeedbackClick(click({ value: 'positive_feedback' }))).toBeUndefined();
    expect(mapFeedbackClick(click({ actionId: 'other' }))).toBeUndefined();
    expect(mapFeedbackClick({ ...click(), team: null })).toBeUndefined();
    expect(mapFeedbackClick(click({ messageTs: 'x'.repeat(201) }))).toBeUndefined();
    expect(mapFeedbackClick({ ...click(), actions: [] })).toBeUndefined();
    expect(mapFeedbackClick('not a payload')).toBeUndefined();
  });

  it('acknowledge a change as a change', () => {
    expect(feedbackAck('bad', 'good')).toContain('Changed to 👎');
    expect(feedbackAck('good', undefined)).toContain('glad');
  });
});
