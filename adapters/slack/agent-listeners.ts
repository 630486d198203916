import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import type { Logger } from '../../src/logger.js';
import { mapAppContext, type ViewedChannels } from './app-context.js';
import { SUGGESTED_PROMPTS } from './assistant-listeners.js';
import { clearAssistantViewNote } from './migration-notice.js';

/** Least time between two settings of the suggested prompts for one user's DM, in ms (a tab is opened often). */
const PROMPTS_EVERY_MS = 10 * 60_000;
/** DMs whose last prompts are remembered; past this the oldest is forgotten (and may get them again). */
const MAX_PROMPTED = 10_000;

export interface AgentListenerContext {
  app: App;
  client: WebClient;
  logger: Logger;
  /** What each user looks at, from `app_context_changed`. */
  viewed: ViewedChannels;
  /** THREADLAB_DATA_DIR, where the note for `threadlab doctor` is cleared once the app is seen on agent_view. */
  dataDir?: string;
}

/**
 * `app_home_opened` as Slack documents it (@slack/types `AppHomeOpenedEvent`): the Messages tab is `tab: "messages"`
 * and `channel` is the user's DM with the app.
 */
const homeOpened = z.object({
  type: z.literal('app_home_opened'),
  user: z.string().regex(/^[UW][A-Z0-9]{2,40}$/),
  channel: z.string().regex(/^D[A-Z0-9]{2,40}$/),
  tab: z.string().max(32).optional(),
});

/**
 * The Agent messaging experience (`agent_view`; Slack's "Migrating to the Agent messaging experience"): when a user
 * opens the app's Messages tab (`app_home_opened` with `tab: "messages"`, which replaces `assistant_thread_started`)
 * the DM gets the suggested prompts, set the way agent apps must: `assistant.threads.setSuggestedPrompts` with the
 * DM's `channel_id` and no `thread_ts` (Slack's reference: a `thread_ts` makes the call silently fail for an agent
 * app). `app_context_changed` (what the user is viewing) is remembered per user for the next DM message. Never throws.
 */
export function registerAgentListeners(ctx: AgentListenerContext): void {
  const { app, logger } = ctx;
  const prompted = new Map<string, number>();
  let onAgentView = false;

  app.event('app_home_opened', async ({ event, body }) => {
    const parsed = homeOpened.safeParse(event);
    if (!parsed.success || parsed.data.tab !== 'messages') return; // the Home tab, or not a DM we can use
    const { channel } = parsed.data;
    const key = `${(body as { team_id?: string }).team_id ?? ''}:${channel}`;
    const last = prompted.get(key);
    if (last !== undefined && Date.now() - last < PROMPTS_EVERY_MS) return;
    prompted.delete(key);
    prompted.set(key, Date.now());
    if (prompted.size > MAX_PROMPTED) prompted.delete(prompted.keys().next().value!);
    try {
      await ctx.client.assistant.threads.setSuggestedPrompts({ channel_id: channel, ...SUGGESTED_PROMPTS });
    } catch (err) {
      prompted.delete(key); // tried again at the next opening
      logger.warn({ err, channel }, 'slack suggested prompts refused for the Messages tab');
    }
  });

  app.event('app_context_changed', async ({ event, body }) => {
    const context = mapAppContext(event);
    if (!context) {
      logger.debug('app_context_changed without a user ignored');
      return;
    }
    ctx.viewed.remember((body as { team_id?: string }).team_id ?? 'unknown', context);
    if (!onAgentView) clearAssistantViewNote(ctx.dataDir); // only agent_view apps receive this event
    onAgentView = true;
  });
}
