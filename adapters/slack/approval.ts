import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { InboundMessage } from '../../src/domain/messages.js';
import { settledLine } from '../../src/governance/approval/approval-text.js';
import { slackMention } from './profile.js';
import type { Logger } from '../../src/logger.js';
import type { ApprovalPrompt, ApprovalSettled, ApprovalView } from '../../src/ports/approval.js';
import type { InboundHandler } from '../../src/ports/platform-adapter.js';
import { toSlackError } from './errors.js';
import { context, section } from './reply-blocks.js';
import type { SlackBlock } from './slack-block.js';
import { escapeMrkdwn } from './slack-text.js';

/** Action ids of the approval buttons; their `value` is the approval id. */
export const APPROVE_RUN_ACTION_ID = 'threadlab_approval_run';
export const APPROVE_SKIP_ACTION_ID = 'threadlab_approval_skip';

/** A section's text is at most 3,000 characters: escaped code up to this many, plus the fence. */
const CHUNK_CHARS = 2900;
/** Slack takes 50 blocks a message: code sections plus a header, a note and the buttons. */
const MAX_CODE_BLOCKS = 45;

/**
 * The code in sections of a fenced block, cut by escaped length (`&` becomes five characters); code past
 * the blocks' room is said, with how much was shown.
 */
export function codeBlocks(code: string): SlackBlock[] {
  const chunks: string[] = [];
  let chunk = '';
  let shown = 0;
  for (const char of code) {
    const escaped = escapeMrkdwn(char);
    if (chunk.length + escaped.length > CHUNK_CHARS) {
      chunks.push(chunk);
      chunk = '';
      if (chunks.length === MAX_CODE_BLOCKS) break;
    }
    chunk += escaped;
    shown += char.length;
  }
  if (chunk) chunks.push(chunk);
  const blocks = chunks.map((c) => section(`\`\`\`\n${c}\n\`\`\``));
  if (shown < code.length) {
    blocks.push(context(`⚠️ Only the first ${shown} of ${code.length} characters fit in a Slack message.`));
  }
  return blocks;
}

function header(view: ApprovalView): string {
  const minutes = Math.max(1, Math.round(view.timeoutMs / 60_000));
  return `The model wants to run this ${view.language} code. ${slackMention({ id: view.askerId })}, run it? (Skipped if nobody answers within ${minutes} min.)`;
}

/** Posts the code with Run and Skip in the thread; settling replaces the buttons with who decided. */
export async function postApproval(
  deps: { client: WebClient; logger: Logger },
  message: InboundMessage,
  view: ApprovalView,
): Promise<ApprovalPrompt> {
  const { client } = deps;
  const channel = message.thread.channel;
  const code = codeBlocks(view.code);
  const buttons: SlackBlock = {
    type: 'actions',
    elements: [
      {
        type: 'button',
        action_id: APPROVE_RUN_ACTION_ID,
        style: 'primary',
        value: view.approvalId,
        text: { type: 'plain_text', text: 'Run' },
      },
      {
        type: 'button',
        action_id: APPROVE_SKIP_ACTION_ID,
        value: view.approvalId,
        text: { type: 'plain_text', text: 'Skip' },
      },
    ],
  } as SlackBlock;
  const posted = await client.chat
    .postMessage({
      channel,
      thread_ts: message.thread.thread,
      text: header(view),
      blocks: [section(header(view)), ...code, buttons] as never,
      unfurl_links: false,
    })
    .catch((err: unknown) => {
      throw toSlackError(err, 'chat.postMessage');
    });
  const ts = posted.ts!;
  return {
    settle: async (outcome: ApprovalSettled) => {
      const line = settledLine(outcome, (id) => slackMention({ id }));
      await client.chat
        .update({ channel, ts, text: line, blocks: [section(line), ...code] as never })
        .catch((err: unknown) => {
          throw toSlackError(err, 'chat.update');
        });
    },
  };
}

/**
 * Run and Skip presses → the core. A press the core refuses (another user, a request no longer
 * waiting) is answered to the presser alone with `chat.postEphemeral`; nothing else changes.
 */
export function registerApprovalActions(ctx: {
  app: App;
  client: WebClient;
  handler: InboundHandler;
  logger: Logger;
}): void {
  const { app, client, handler, logger } = ctx;
  app.action(new RegExp(`^(${APPROVE_RUN_ACTION_ID}|${APPROVE_SKIP_ACTION_ID})$`), async ({ ack, action, body }) => {
    await ack();
    try {
      const { action_id: actionId, value } = action as { action_id?: string; value?: string };
      const userId = (body as { user?: { id?: string } }).user?.id;
      const channel = (body as { channel?: { id?: string } }).channel?.id;
      if (!userId || !value || !handler.onApproval) return;
      const press = { approvalId: value, userId, action: actionId === APPROVE_RUN_ACTION_ID ? 'run' : 'skip' } as const;
      const outcome = await handler.onApproval('slack', press);
      if (outcome.ok || !channel) return;
      const threadTs = (body as { container?: { thread_ts?: string } }).container?.thread_ts;
      await client.chat.postEphemeral({
        channel,
        user: userId,
        text: outcome.message,
        ...(threadTs ? { thread_ts: threadTs } : {}),
      });
    } catch (err) {
      logger.error({ err }, 'approval button handling failed');
    }
  });
}
