import { blockActions } from './payloads.js';

/**
 * A `block_actions` payload for a click on a `feedback_buttons` element (Slack's Block Kit reference,
 * docs.slack.dev/reference/block-kit/block-elements/feedback-buttons-element; the action is bolt's
 * FeedbackButtonsAction, node_modules/@slack/bolt/dist/types/actions/block-action.d.ts: `type`, `block_id`,
 * `action_id`, `action_ts`, the clicked button's `value` and `text`). Its message is the bot's answer in a thread.
 */
export function feedbackClick(o: {
  verdict: 'good' | 'bad';
  messageTs: string;
  threadTs: string;
  responseUrl: string;
  channel?: string;
  /** @defaultValue USER_ID */
  userId?: string;
  /** The action id of the element. @defaultValue threadlab_feedback */
  actionId?: string;
  /** Sent as the button's value instead of the verdict (a forged or foreign value). */
  value?: string;
}): Record<string, unknown> {
  return blockActions({
    ...o,
    messageText: 'answer',
    action: {
      type: 'feedback_buttons',
      block_id: 'k7Hq2',
      action_id: o.actionId ?? 'threadlab_feedback',
      action_ts: `${Date.now() / 1000}`,
      value: o.value ?? o.verdict,
      text: { type: 'plain_text', text: o.verdict === 'good' ? '👍' : '👎', emoji: true },
    },
  });
}
