import { BOT_ID, BOT_USER_ID, CHANNEL_ID, nextTs, TEAM_ID } from './payloads.js';

/** A message as Slack carries it inside `message_changed` (the fields a sent event or a posted message have). */
interface EditedShape {
  text?: unknown;
  ts?: unknown;
  thread_ts?: unknown;
  channel?: unknown;
  channel_type?: unknown;
  user?: unknown;
}

/**
 * The `message_changed` event Slack sends when a message is edited (`message.channels`/`groups`/`im`):
 * `message` is the message after the edit, with `edited: {user, ts}`, and `previous_message` before it.
 * `editor` defaults to the author; another user there is an admin's edit. `bot` makes it the bot's own
 * edit, as Slack also sends for `chat.update`.
 */
export function messageChanged(
  original: EditedShape,
  o: { text: string; editor?: string; bot?: boolean; channelType?: string },
): Record<string, unknown> {
  const ts = nextTs();
  const author = o.bot ? BOT_USER_ID : String(original.user ?? '');
  const base = {
    type: 'message',
    user: author,
    ts: String(original.ts),
    team: TEAM_ID,
    ...(original.thread_ts ? { thread_ts: String(original.thread_ts) } : {}),
    ...(o.bot ? { bot_id: BOT_ID, app_id: 'A0APP001' } : {}),
  };
  return {
    type: 'message',
    subtype: 'message_changed',
    hidden: true,
    channel: String(original.channel ?? CHANNEL_ID),
    channel_type: o.channelType ?? String(original.channel_type ?? 'channel'),
    ts,
    event_ts: ts,
    message: { ...base, text: o.text, edited: { user: o.editor ?? author, ts } },
    previous_message: { ...base, text: String(original.text ?? '') },
  };
}
