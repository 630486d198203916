import { nextTs, TEAM_ID, USER_ID } from './payloads.js';

/**
 * `app_home_opened` as an agent app (`agent_view`) receives it when a user opens its Messages tab: `tab: "messages"`
 * and `channel` the user's DM with the app. Shape: @slack/types `AppHomeOpenedEvent`
 * (node_modules/@slack/types/dist/events/app.d.ts) and Slack's "Migrating to the Agent messaging experience"
 * (https://docs.slack.dev/ai/migrating-to-agent-messaging/), which says this event with `tab === "messages"` replaces
 * `assistant_thread_started`.
 */
export function appHomeOpened(o: {
  channel: string;
  user?: string;
  tab?: 'home' | 'messages';
}): Record<string, unknown> {
  return {
    type: 'app_home_opened',
    user: o.user ?? USER_ID,
    channel: o.channel,
    tab: o.tab ?? 'messages',
    event_ts: nextTs(),
  };
}

/**
 * `app_context_changed`: what the user is viewing, entities most relevant first; an empty context is `{}`. Shape:
 * Slack's reference page (https://docs.slack.dev/reference/events/app_context_changed) and @slack/types
 * `AppContextChangedEvent` (which adds `user` and
 * `channel`, the DM, beside the `context` the page's example shows). Only agent_view apps receive it.
 */
export function appContextChanged(o: {
  /** The channel looked at; none gives the empty context. */
  viewing?: string;
  user?: string;
  channel?: string;
  /** Entities as sent, instead of the one channel. */
  entities?: unknown[];
}): Record<string, unknown> {
  const entities =
    o.entities ?? (o.viewing ? [{ type: 'slack#/types/channel_id', value: o.viewing, team_id: TEAM_ID }] : undefined);
  return {
    type: 'app_context_changed',
    user: o.user ?? USER_ID,
    ...(o.channel ? { channel: o.channel } : {}),
    context: entities ? { entities } : {},
    event_ts: nextTs(),
  };
}
