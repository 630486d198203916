import { pressMessage, type InboundMessage, type InboundUser } from '../../src/domain/messages.js';
import { answerInbound, tellPrivately } from '../../src/replies/inbound-answer.js';
import { parseThreadKey, threadKey, type ThreadRef } from '../../src/domain/thread-key.js';
import type { ListenerContext } from './listener-context.js';
import { exportCommand } from './export-command.js';
import { commandRootText, mapSlashCommand, parseCommandText, runCodeOf, type SlackCommandBody } from './map-command.js';
import { mapMessageEvent, NOT_IN_THREAD, type SlackEventBody, type SlackMessageEvent } from './map-event.js';
import { isMessageChanged, mapEditEvent } from './map-edit.js';
import { STOP_ACTION_ID } from './progress-view.js';
import { section } from './reply-blocks.js';
import { escapeMrkdwn } from './slack-text.js';
import { registerRunShortcut } from './run-shortcut.js';
import { makesQuestionSchedule, parseScheduleCommand } from '../../src/schedules/parse-schedule.js';

/** Commands about an existing thread's state; a slash command cannot name the thread. */
const COMMANDS_NEEDING_THE_THREAD = new Set(['reset', 'files', 'stop']);

/**
 * Wires bolt's events, the slash command and the Stop button to the handler. Every listener acks first
 * and never throws: a payload we cannot use is logged and dropped.
 */
export function registerListeners(ctx: ListenerContext): void {
  const { app, logger } = ctx;
  const seen = new Set<string>();
  const deliver = async (message: InboundMessage): Promise<void> => {
    if (seen.has(message.id)) return; // the same post as app_mention and as message, or a redelivery
    seen.add(message.id);
    if (seen.size > 2000) seen.delete(seen.values().next().value!);
    ctx.known.add(threadKey(message.thread));
    // A schedule's times of day are in the user's own zone unless it names one.
    if (message.command?.name === 'schedule') message.user.timeZone = await userTimeZone(ctx, message.user.id);
    if (ctx.enrich) message = await ctx.enrich(message);
    await answerInbound(ctx.target, message, await ctx.handler.onMessage(message), logger);
  };

  const onEvent = async ({ event, body }: { event: unknown; body: unknown }): Promise<void> => {
    try {
      const input = {
        event: event as SlackMessageEvent,
        body: body as SlackEventBody,
        botUserId: ctx.botUserId,
        followThreads: ctx.followThreads,
        isKnownThread: (ref: ThreadRef) => ctx.known.has(threadKey(ref)),
      };
      // An edit (message_changed) re-runs the message it changed; the core decides whether it answered it.
      const e = input.event;
      const map = isMessageChanged(e) ? mapEditEvent : mapMessageEvent;
      let result = map(input);
      if (result.kind === 'ignore' && result.reason === NOT_IN_THREAD) {
        // Not seen since start: Slack's history says whether the bot answered in this thread before.
        const threadTs = isMessageChanged(e) ? e.message?.thread_ts : e.thread_ts;
        const ref: ThreadRef = {
          platform: 'slack',
          workspace: input.body.team_id ?? '',
          channel: e.channel ?? '',
          thread: threadTs ?? '',
        };
        if (await ctx.membership.isMember(ref)) result = map({ ...input, isKnownThread: () => true });
      }
      if (result.kind === 'ignore') {
        logger.debug({ reason: result.reason }, 'slack event ignored');
        return;
      }
      await deliver(result.message);
    } catch (err) {
      logger.error({ err }, 'slack event handling failed');
    }
  };
  registerRunShortcut(ctx, deliver);
  app.event('app_mention', onEvent);
  app.event('message', onEvent);

  app.command(ctx.command, async ({ command, ack, respond }) => {
    const body = command as unknown as SlackCommandBody;
    const parsed = parseCommandText(body.text);
    if (parsed.kind === 'invalid') {
      await ack({ response_type: 'ephemeral', text: parsed.error });
      return;
    }
    if (parsed.kind === 'command' && parsed.command.name === 'export') {
      // The thread comes as its link (export-command.ts); the answer goes into it, not into a new thread.
      const asked = exportCommand(body, ctx.botUserId, Date.now());
      await ack(asked.kind === 'invalid' ? { response_type: 'ephemeral', text: asked.error } : undefined);
      if (asked.kind === 'export') await deliver(asked.message);
      return;
    }
    const schedule = parsed.kind === 'command' && parsed.command.name === 'schedule' ? parsed.command.text : undefined;
    const scheduleError = schedule === undefined ? undefined : scheduleErrorOf(schedule);
    if (scheduleError !== undefined) {
      // A schedule that does not parse is answered with its syntax, before any thread is started.
      await ack({ response_type: 'ephemeral', text: scheduleError });
      return;
    }
    if (schedule !== undefined && !makesQuestionSchedule(schedule)) {
      // Listing, cancelling and re-running are about a thread the slash command cannot name.
      await ack({
        response_type: 'ephemeral',
        text: `Slack does not tell me which thread a slash command comes from. In the thread you mean, send \`schedule ${schedule.slice(0, 200)}\` as a message (or \`<@${ctx.botUserId}> schedule …\`). \`${ctx.command} schedule every day 09:00 <question>\` starts a new thread with its schedule.`,
      });
      return;
    }
    if (parsed.kind === 'command' && COMMANDS_NEEDING_THE_THREAD.has(parsed.command.name)) {
      // Slack does not say which thread a slash command was typed in, so these could only act on a new,
      // empty thread: say how to reach the thread the user means instead.
      const word = parsed.command.name;
      await ack({
        response_type: 'ephemeral',
        text: `Slack does not tell me which thread a slash command comes from. In the thread you mean, send \`${word}\` as a message (or \`<@${ctx.botUserId}> ${word}\`).`,
      });
      return;
    }
    await ack(); // within Slack's 3 seconds; the work continues in a thread
    try {
      // Help and usage are about the user, not a thread: a private answer, no thread started.
      if (parsed.kind === 'command' && (parsed.command.name === 'help' || parsed.command.name === 'usage')) {
        const message = mapSlashCommand({
          body,
          parsed,
          rootTs: `${parsed.command.name}-${body.trigger_id ?? Date.now()}`,
          nowMs: Date.now(),
        });
        message.replyContext = { ...message.replyContext, ephemeral: true };
        await answerInbound(ctx.target, message, await ctx.handler.onMessage(message), logger);
        return;
      }
      // Access before the root message: a refused user must not make the bot post in the channel. The
      // provisional message's place is the channel; a notice that cannot be ephemeral goes to response_url.
      const provisional = mapSlashCommand({ body, parsed, rootTs: '', nowMs: Date.now() });
      provisional.replyContext = { ...provisional.replyContext, ephemeral: true };
      const admission = (await ctx.handler.admit?.(provisional, { slashCommand: true })) ?? { allowed: true };
      if (!admission.allowed) {
        if (admission.tell) await tellPrivately(ctx.target, provisional, admission.message, logger);
        return;
      }
      const blocks = [section(commandRootText(body, parsed))];
      const shownCode = parsed.kind !== 'command' ? undefined : runCodeOf(parsed.command);
      if (shownCode !== undefined) blocks.push(section(`\`\`\`\n${escapeMrkdwn(shownCode).slice(0, 2900)}\n\`\`\``));
      const root = await ctx.client.chat.postMessage({
        channel: body.channel_id,
        text: commandRootText(body, parsed),
        blocks,
      });
      await deliver(mapSlashCommand({ body, parsed, rootTs: root.ts!, nowMs: Date.now() }));
    } catch (err) {
      logger.error({ err }, 'slash command failed');
      await respond({
        response_type: 'ephemeral',
        text: 'I could not start a thread here. Invite me to the channel (`/invite @Threadlab`) and try again.',
      }).catch((respondErr: unknown) => logger.warn({ err: respondErr }, 'could not answer the slash command'));
    }
  });

  app.action(STOP_ACTION_ID, async ({ ack, action, body }) => {
    await ack();
    try {
      const key = (action as { value?: string }).value ?? '';
      const ref = parseThreadKey(key);
      const channel = (body as { channel?: { id?: string } }).channel?.id;
      if (ref.platform !== 'slack' || (channel && channel !== ref.channel)) {
        logger.warn({ key, channel }, 'stop button for another channel ignored');
        return;
      }
      const presser = (body as { user?: { id?: string; name?: string } }).user;
      const user = { id: presser?.id ?? '', ...(presser?.name ? { name: presser.name } : {}) };
      await answerStop(ctx, key, user);
    } catch (err) {
      logger.error({ err }, 'stop button handling failed');
    }
  });

  app.error(async (err) => {
    logger.error({ err }, 'slack listener error');
  });
}

/** What is wrong with a slash `schedule`'s text (with the syntax), or undefined when it parses. */
function scheduleErrorOf(text: string): string | undefined {
  const parsed = parseScheduleCommand(text);
  return parsed.kind === 'invalid' ? parsed.error : undefined;
}

/** The user's time zone from `users.info` (`tz`), or undefined (UTC applies) when Slack does not say. */
async function userTimeZone(
  ctx: Pick<ListenerContext, 'client' | 'logger'>,
  user: string,
): Promise<string | undefined> {
  try {
    const info = await ctx.client.users.info({ user });
    const tz = info.user?.tz;
    return typeof tz === 'string' && tz.length <= 64 ? tz : undefined;
  } catch (err) {
    ctx.logger.warn({ err, user }, 'could not read the user’s time zone; schedules use UTC');
    return undefined;
  }
}

/** Hands a Stop press (the button, or Slack's own stop) to the core; a refused presser is told ephemerally. */
export async function answerStop(
  ctx: Pick<ListenerContext, 'handler' | 'target' | 'logger'>,
  key: string,
  user: InboundUser,
): Promise<void> {
  const outcome = await ctx.handler.onCancel(key, user);
  if (outcome && !outcome.accepted && outcome.tell) {
    await tellPrivately(ctx.target, pressMessage(parseThreadKey(key), user), outcome.message, ctx.logger);
  }
}
