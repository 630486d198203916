import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { threadKey } from '../../src/domain/thread-key.js';
import type { Logger } from '../../src/logger.js';
import type { InboundHandler } from '../../src/ports/platform-adapter.js';
import type { AnswerTarget } from '../../src/replies/inbound-answer.js';
import { answerStop } from './listeners.js';
import { slackErrorCode, type SurfaceSupport } from './surface-support.js';

/** What a new assistant thread offers (`assistant.threads.setSuggestedPrompts` allows up to four). */
export const SUGGESTED_PROMPTS = {
  title: 'Try one of these',
  prompts: [
    { title: 'Compute something', message: 'What is the 50th Fibonacci number, and how long does it take to compute?' },
    {
      title: 'Analyse a file',
      message: 'I will share a CSV: summarise its columns and plot the most interesting one.',
    },
    { title: 'Draw a chart', message: 'Plot sin(x) and cos(x) from 0 to 2π on one chart.' },
    { title: 'What can you do?', message: 'help' },
  ],
};

export interface AssistantListenerContext {
  app: App;
  client: WebClient;
  handler: InboundHandler;
  /** Where a refused Stop is answered (the adapter's ephemeral notice). */
  target: AnswerTarget;
  logger: Logger;
  support: SurfaceSupport;
  /** Told of each `assistant_thread_started`: the app is still on `assistant_view` (see migration-notice.ts). */
  onAssistantView?: (workspace: string) => void;
}

interface ThreadStartedEvent {
  assistant_thread?: { channel_id?: string; thread_ts?: string; user_id?: string };
}
interface SessionStoppedEvent {
  channel?: string;
  thread_ts?: string;
  user?: string;
}
interface Envelope {
  team_id?: string;
}

/**
 * Slack's AI app container on the retiring `assistant_view` (agent-listeners.ts has `agent_view`'s): a new assistant
 * thread gets suggested prompts, and the native Stop button of
 * a streaming answer (`agent_session_stopped`) stops the thread's job as the Stop button does. Registered
 * with `app.event` rather than bolt's `Assistant` class, which would take DM thread messages away from
 * the one message listener every other message goes through. Never throws.
 */
export function registerAssistantListeners(ctx: AssistantListenerContext): void {
  const { app, logger } = ctx;

  app.event('assistant_thread_started', async ({ event, body }) => {
    const thread = (event as ThreadStartedEvent).assistant_thread;
    const workspace = (body as Envelope).team_id ?? 'unknown';
    ctx.onAssistantView?.(workspace);
    if (!thread?.channel_id || !thread.thread_ts) {
      logger.warn({ event: event.type }, 'assistant thread without channel or thread_ts ignored');
      return;
    }
    const key = threadKey({ platform: 'slack', workspace, channel: thread.channel_id, thread: thread.thread_ts });
    if (!ctx.support.usable(workspace, key)) return;
    try {
      await ctx.client.assistant.threads.setSuggestedPrompts({
        channel_id: thread.channel_id,
        thread_ts: thread.thread_ts,
        ...SUGGESTED_PROMPTS,
      });
    } catch (err) {
      logger.warn({ err, thread: key }, 'slack suggested prompts refused');
      ctx.support.refused({
        workspace,
        threadKey: key,
        method: 'assistant.threads.setSuggestedPrompts',
        error: slackErrorCode(err),
      });
    }
  });

  app.event('agent_session_stopped', async ({ event, body }) => {
    try {
      const e = event as SessionStoppedEvent;
      const workspace = (body as Envelope).team_id ?? 'unknown';
      if (!e.channel || !e.thread_ts) {
        logger.warn({ event: event.type }, 'agent_session_stopped without channel or thread_ts ignored');
        return;
      }
      const key = threadKey({ platform: 'slack', workspace, channel: e.channel, thread: e.thread_ts });
      await answerStop(ctx, key, { id: e.user ?? '' });
    } catch (err) {
      logger.error({ err }, 'slack native stop handling failed');
    }
  });
}
