import type { InboundMessage } from '../../src/domain/messages.js';
import { tellPrivately } from '../../src/replies/inbound-answer.js';
import { toSlackError } from './errors.js';
import type { ListenerContext } from './listener-context.js';
import { mapShortcut, RUN_SHORTCUT_CALLBACK_ID, type SlackMessageShortcut } from './map-shortcut.js';

/** Slack errors of a channel the bot is not in or cannot see. */
const NOT_THERE = new Set(['not_in_channel', 'channel_not_found', 'is_archived', 'restricted_action']);

/**
 * The message shortcut "Run in Threadlab": acknowledged at once (Slack allows 3 s), then the invoker's access (a
 * refusal only they see), then a line in the message's thread saying who asked to run it (so everyone there
 * sees it, and a channel the bot cannot post in is found before anything runs: the invoker is told through the
 * shortcut's response_url how to invite it), then the run, answered in that thread.
 */
export function registerRunShortcut(ctx: ListenerContext, deliver: (message: InboundMessage) => Promise<void>): void {
  const { logger } = ctx;
  ctx.app.shortcut(RUN_SHORTCUT_CALLBACK_ID, async ({ shortcut, ack, respond }) => {
    await ack();
    try {
      if (shortcut.type !== 'message_action') return;
      const message = mapShortcut(shortcut as unknown as SlackMessageShortcut, Date.now());
      if (!message) {
        logger.warn('a Run in Threadlab shortcut without user, channel or message was ignored');
        return;
      }
      // A refusal goes only to the invoker: ephemeral in the channel, else through the response_url.
      const privately = { ...message, replyContext: { ...message.replyContext, ephemeral: true } };
      const admission = (await ctx.handler.admit?.(privately, { slashCommand: true })) ?? { allowed: true };
      if (!admission.allowed) {
        if (admission.tell) await tellPrivately(ctx.target, privately, admission.message, logger);
        return;
      }
      try {
        await ctx.client.chat.postMessage({
          channel: message.thread.channel,
          thread_ts: message.thread.thread,
          text: `<@${message.user.id}> asked me to run the code of this message.`,
        });
      } catch (err) {
        const error = toSlackError(err, 'chat.postMessage');
        const code = String(error.details?.error ?? '');
        logger.warn({ err: error }, 'Run in Threadlab: cannot post in the message’s channel');
        await respond({
          response_type: 'ephemeral',
          text: NOT_THERE.has(code)
            ? `I cannot read or post in this channel (${code}). Invite me with \`/invite @Threadlab\`, then use Run in Threadlab again.`
            : 'I could not start this run. Please try again.',
        });
        return;
      }
      await deliver(message);
    } catch (err) {
      logger.error({ err }, 'Run in Threadlab shortcut failed');
    }
  });
}
