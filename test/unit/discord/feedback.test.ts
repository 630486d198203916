import { describe, expect, it } from 'vitest';
import {
  clickThreadRef,
  commentModal,
  feedbackRow,
  parseFeedbackButtonId,
  parseFeedbackModalId,
  withFeedbackRow,
} from '../../../adapters/discord/feedback.js';

const REF = 'discord:message:1234567890123456789';

describe('Discord feedback buttons', () => {
  it('are an action row of 👍 and 👎 whose custom ids carry the verdict and the answer, within 100 characters', () => {
    const row = feedbackRow(REF) as { type: number; components: Record<string, unknown>[] };
    expect(row.type).toBe(1);
    expect(row.components.map((c) => [c.type, c.style, (c.emoji as { name: string }).name, c.custom_id])).toEqual([
      [2, 2, '👍', `threadlab_feedback:good:${REF}`],
      [2, 2, '👎', `threadlab_feedback:bad:${REF}`],
    ]);
    for (const c of row.components) expect(String(c.custom_id).length).toBeLessThanOrEqual(100);
    expect(parseFeedbackButtonId(`threadlab_feedback:bad:${REF}`)).toEqual({ verdict: 'bad', answerRef: REF });
  });

  it('refuse custom ids that are not theirs, an unknown verdict, and refs that are too long or odd', () => {
    for (const id of [
      `threadlab_feedback:meh:${REF}`,
      `threadlab_feedback:good:${'1'.repeat(65)}`,
      'threadlab_feedback:good:',
      'threadlab_feedback:good:a b',
      'threadlab_approval:run:x',
    ])
      expect(parseFeedbackButtonId(id)).toBeUndefined();
    expect(feedbackRow('x'.repeat(65))).toBeUndefined();
    expect(parseFeedbackModalId(`threadlab_feedback_comment:${REF}`)).toBe(REF);
    expect(parseFeedbackModalId('threadlab_run_modal')).toBeUndefined();
  });

  it('go on the answer’s last message, after its own components', () => {
    const messages = [
      { content: 'a', files: [] },
      { content: 'b', files: [], components: [{ type: 1, components: [] }] },
    ];
    const out = withFeedbackRow(messages, REF);
    expect(out[0]).toEqual(messages[0]);
    expect(out[1]!.components).toHaveLength(2);
    expect(withFeedbackRow([], REF)).toEqual([]);
  });

  it('find the thread of the clicked message as messages and commands key it', () => {
    expect(clickThreadRef({ guildId: 'G1', channelId: 'T9', parentId: 'C1' })).toEqual({
      platform: 'discord',
      workspace: 'G1',
      channel: 'C1',
      thread: 'T9',
    });
    expect(clickThreadRef({ guildId: null, channelId: 'D1', parentId: null })).toMatchObject({ workspace: 'dm' });
  });

  it('open a modal with one optional paragraph of at most 500 characters', () => {
    const modal = commentModal(REF).toJSON() as unknown as {
      custom_id: string;
      components: { components: Record<string, unknown>[] }[];
    };
    expect(modal.custom_id).toBe(`threadlab_feedback_comment:${REF}`);
    expect(modal.components[0]!.components[0]).toMatchObject({
      custom_id: 'comment',
      style: 2,
      required: false,
      max_length: 500,
    });
  });
});
