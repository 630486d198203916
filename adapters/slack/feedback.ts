import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import { FEEDBACK_REF_MAX_CHARS, type FeedbackClick, type FeedbackVerdict } from '../../src/domain/feedback.js';
import { threadKey } from '../../src/domain/thread-key.js';
import type { Logger } from '../../src/logger.js';
import type { InboundHandler } from '../../src/ports/platform-adapter.js';
import type { SlackBlock } from './slack-block.js';

/** The action id of the answers' feedback buttons; the buttons' values are the verdicts. */
export const FEEDBACK_ACTION_ID = 'threadlab_feedback';

/**
 * 👍/👎 under a model's answer: a `feedback_buttons` element in a `context_actions` block, as Slack's Block Kit
 * reference gives them (docs.slack.dev/reference/block-kit/block-elements/feedback-buttons-element and
 * .../blocks/context-actions-block; the types are FeedbackButtons and ContextActionsBlock in
 * node_modules/@slack/types/dist/block-kit). Button text is plain_text of at most 75 characters and a value at
 * most 2,000: the values name the verdict only, and the answer is the message the click comes from.
 */
export function feedbackBlock(): SlackBlock {
  return {
    type: 'context_actions',
    elements: [
      {
        type: 'feedback_buttons',
        action_id: FEEDBACK_ACTION_ID,
        positive_button: {
          text: { type: 'plain_text', text: '👍' },
          accessibility_label: 'Mark this answer as good',
          value: 'good',
        },
        negative_button: {
          text: { type: 'plain_text', text: '👎' },
          accessibility_label: 'Mark this answer as bad',
          value: 'bad',
        },
      },
    ],
  };
}

const id = z.string().min(1).max(FEEDBACK_REF_MAX_CHARS);

/**
 * The fields of a `block_actions` payload a feedback click needs (bolt's BlockAction<FeedbackButtonsAction>,
 * node_modules/@slack/bolt/dist/types/actions/block-action.d.ts); everything else passes unread.
 */
const clickSchema = z.object({
  type: z.literal('block_actions'),
  user: z.object({ id, name: z.string().max(200).optional(), username: z.string().max(200).optional() }),
  team: z.object({ id }).nullish(),
  container: z.object({ message_ts: id.optional(), channel_id: id.optional(), thread_ts: id.optional() }).optional(),
  channel: z.object({ id }).optional(),
  message: z.object({ ts: id, thread_ts: id.optional() }).optional(),
  actions: z
    .array(z.object({ type: z.string(), action_id: z.string(), value: z.string().max(2000).optional() }))
    .min(1)
    .max(5),
});

/** A feedback click and where to acknowledge it. */
export interface SlackFeedbackClick extends FeedbackClick {
  channel: string;
  threadTs: string;
}

/**
 * Maps a feedback click to the core's FeedbackClick: the thread from the message's channel and thread_ts (the
 * team's id as the workspace, as events map it), the answer from the clicked message's ts, the verdict from the
 * button's value. Undefined for anything else or anything malformed. Pure.
 */
export function mapFeedbackClick(body: unknown): SlackFeedbackClick | undefined {
  const parsed = clickSchema.safeParse(body);
  if (!parsed.success) return undefined;
  const p = parsed.data;
  const action = p.actions.find((a) => a.action_id === FEEDBACK_ACTION_ID && a.type === 'feedback_buttons');
  const verdict = action?.value;
  if (verdict !== 'good' && verdict !== 'bad') return undefined;
  const channel = p.container?.channel_id ?? p.channel?.id;
  const messageTs = p.message?.ts ?? p.container?.message_ts;
  // Answers are always posted in a thread: its root is the thread the core keys.
  const threadTs = p.message?.thread_ts ?? p.container?.thread_ts;
  if (!channel || !messageTs || !threadTs || !p.team) return undefined;
  const name = p.user.name ?? p.user.username;
  return {
    threadKey: threadKey({ platform: 'slack', workspace: p.team.id, channel, thread: threadTs }),
    answerRef: messageTs,
    user: { id: p.user.id, ...(name ? { name } : {}) },
    verdict: verdict satisfies FeedbackVerdict,
    channel,
    threadTs,
  };
}

/** What the clicker alone is told, in the thread: Slack's own sample acknowledges a feedback click this way. */
export function feedbackAck(verdict: FeedbackVerdict, previous: FeedbackVerdict | undefined): string {
  if (previous && previous !== verdict)
    return `Changed to ${verdict === 'good' ? '👍' : '👎'}. Thanks for your feedback.`;
  return verdict === 'good'
    ? 'Thanks, glad this answer was useful. 👍'
    : "Thanks for telling me this answer wasn't right. 👎 Rephrasing the question, or `reset` for a fresh start, may help.";
}

/**
 * Feedback clicks → the core, acknowledged to the clicker with `chat.postEphemeral` in the thread (as Slack's
 * sample agent app does, slack-samples/bolt-js-slack-mcp-server listeners/actions/feedback.js). A refusal (an
 * answer no longer on record, a user the allowlists refuse) is said the same way. Acks first; never throws.
 */
export function registerFeedbackActions(ctx: {
  app: App;
  client: WebClient;
  handler: InboundHandler;
  logger: Logger;
}): void {
  const { app, client, handler, logger } = ctx;
  app.action(FEEDBACK_ACTION_ID, async ({ ack, body }) => {
    await ack();
    try {
      const click = mapFeedbackClick(body);
      if (!click || !handler.onFeedback) {
        logger.warn('a feedback click that could not be read was dropped');
        return;
      }
      const outcome = await handler.onFeedback(click);
      const text = outcome.recorded ? feedbackAck(click.verdict, outcome.previous) : outcome.message;
      await client.chat.postEphemeral({ channel: click.channel, user: click.user.id, thread_ts: click.threadTs, text });
    } catch (err) {
      logger.error({ err }, 'feedback click handling failed');
    }
  });
}
