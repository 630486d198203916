import { randomUUID } from 'node:crypto';

/** Recorded-shape payloads Slack sends, with only the fields that matter overridable. */
export const TEAM_ID = 'T0TEAM';
export const BOT_USER_ID = 'UBOT0001';
export const BOT_ID = 'B0BOT001';
export const USER_ID = 'U0USER01';
export const CHANNEL_ID = 'C0CHAN01';

let tsCounter = 0;
/** A fresh Slack timestamp (`seconds.micro`), unique within the process. */
export function nextTs(): string {
  tsCounter += 1;
  return `${Math.floor(Date.now() / 1000)}.${String(100000 + tsCounter).padStart(6, '0')}`;
}

export interface SlackFileShape {
  id: string;
  name: string;
  mimetype: string;
  filetype?: string;
  size: number;
  url_private_download?: string;
  file_access?: string;
}

/** The `event_callback` envelope of an Events API request. */
export function eventCallback(event: Record<string, unknown>, o: { teamId?: string } = {}): Record<string, unknown> {
  const teamId = o.teamId ?? TEAM_ID;
  return {
    token: 'verification-token-unused',
    team_id: teamId,
    api_app_id: 'A0APP001',
    event,
    type: 'event_callback',
    event_id: `Ev${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      { enterprise_id: null, team_id: teamId, user_id: BOT_USER_ID, is_bot: true, is_enterprise_install: false },
    ],
    is_ext_shared_channel: false,
  };
}

export function appMention(o: {
  text: string;
  ts?: string;
  thread_ts?: string;
  channel?: string;
  user?: string;
  files?: SlackFileShape[];
}): Record<string, unknown> {
  const ts = o.ts ?? nextTs();
  return {
    type: 'app_mention',
    client_msg_id: randomUUID(),
    user: o.user ?? USER_ID,
    text: o.text,
    ts,
    team: TEAM_ID,
    channel: o.channel ?? CHANNEL_ID,
    event_ts: ts,
    ...(o.thread_ts ? { thread_ts: o.thread_ts } : {}),
    ...(o.files ? { files: o.files, upload: false } : {}),
  };
}

export function messageEvent(o: {
  text: string;
  ts?: string;
  thread_ts?: string;
  channel?: string;
  channel_type?: string;
  user?: string;
  subtype?: string;
  bot_id?: string;
  files?: SlackFileShape[];
  parent_user_id?: string;
}): Record<string, unknown> {
  const ts = o.ts ?? nextTs();
  return {
    type: 'message',
    client_msg_id: randomUUID(),
    text: o.text,
    user: o.user ?? USER_ID,
    ts,
    team: TEAM_ID,
    channel: o.channel ?? CHANNEL_ID,
    event_ts: ts,
    channel_type: o.channel_type ?? 'channel',
    ...(o.subtype ? { subtype: o.subtype } : {}),
    ...(o.bot_id ? { bot_id: o.bot_id } : {}),
    ...(o.thread_ts ? { thread_ts: o.thread_ts } : {}),
    ...(o.parent_user_id ? { parent_user_id: o.parent_user_id } : {}),
    ...(o.files ? { files: o.files, upload: false } : {}),
  };
}

/** The form fields of a slash command request. */
export function slashCommand(o: {
  text: string;
  command?: string;
  responseUrl: string;
  channel?: string;
}): Record<string, string> {
  return {
    token: 'verification-token-unused',
    team_id: TEAM_ID,
    team_domain: 'threadlab',
    channel_id: o.channel ?? CHANNEL_ID,
    channel_name: 'general',
    user_id: USER_ID,
    user_name: 'ada',
    command: o.command ?? '/interpreter',
    text: o.text,
    api_app_id: 'A0APP001',
    is_enterprise_install: 'false',
    response_url: o.responseUrl,
    trigger_id: `${Date.now()}.${randomUUID().slice(0, 8)}`,
  };
}

/**
 * A `block_actions` payload: one action on a message of the bot in a channel (in a thread when `threadTs` is set),
 * as Slack sends it for any interactive element; `action` is the element's own part.
 */
export function blockActions(o: {
  action: Record<string, unknown>;
  messageTs: string;
  threadTs?: string;
  responseUrl: string;
  /** The text of the message the element is on. */
  messageText: string;
  channel?: string;
  /** Who acted. @defaultValue USER_ID */
  userId?: string;
}): Record<string, unknown> {
  const channel = o.channel ?? CHANNEL_ID;
  return {
    type: 'block_actions',
    user: { id: o.userId ?? USER_ID, username: 'ada', name: 'ada', team_id: TEAM_ID },
    api_app_id: 'A0APP001',
    token: 'verification-token-unused',
    container: {
      type: 'message',
      message_ts: o.messageTs,
      channel_id: channel,
      is_ephemeral: false,
      thread_ts: o.threadTs,
    },
    trigger_id: `${Date.now()}.${randomUUID().slice(0, 8)}`,
    team: { id: TEAM_ID, domain: 'threadlab' },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: channel, name: 'general' },
    message: {
      type: 'message',
      ts: o.messageTs,
      thread_ts: o.threadTs,
      text: o.messageText,
      user: BOT_USER_ID,
      bot_id: BOT_ID,
    },
    state: { values: {} },
    response_url: o.responseUrl,
    actions: [o.action],
  };
}

/** A `block_actions` payload for a button press. */
export function buttonPress(o: {
  actionId: string;
  value: string;
  channel?: string;
  messageTs: string;
  threadTs?: string;
  responseUrl: string;
  /** Who pressed. @defaultValue USER_ID */
  userId?: string;
}): Record<string, unknown> {
  return blockActions({
    ...o,
    messageText: 'status',
    action: {
      action_id: o.actionId,
      block_id: 'threadlab_progress',
      text: { type: 'plain_text', text: 'Stop', emoji: true },
      value: o.value,
      style: 'danger',
      type: 'button',
      action_ts: `${Date.now() / 1000}`,
    },
  });
}

/** A `rich_text` block as Slack's composer sends a message: sections of text and code blocks, in order. */
export function richText(parts: ({ text: string } | { code: string })[]): Record<string, unknown> {
  return {
    type: 'rich_text',
    block_id: randomUUID().slice(0, 5),
    elements: parts.map((p) =>
      'code' in p
        ? { type: 'rich_text_preformatted', elements: [{ type: 'text', text: p.code }], border: 0 }
        : { type: 'rich_text_section', elements: [{ type: 'text', text: p.text }] },
    ),
  };
}

/** The `text` Slack sends beside such blocks: code blocks fenced as ```code```, and `&`, `<`, `>` escaped. */
export function richTextFallback(parts: ({ text: string } | { code: string })[]): string {
  const escape = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return parts.map((p) => ('code' in p ? `\`\`\`${escape(p.code)}\`\`\`` : escape(p.text))).join('\n');
}

/**
 * A `message_action` payload: someone used a message shortcut on a message (as Slack sends it through
 * interactivity, form-encoded over HTTP or an `interactive` envelope in Socket Mode).
 */
export function messageShortcut(o: {
  callbackId: string;
  /** The message as Slack includes it: its author, text, blocks, thread and files. */
  message: {
    ts?: string;
    user?: string;
    bot_id?: string;
    text: string;
    blocks?: Record<string, unknown>[];
    thread_ts?: string;
    files?: SlackFileShape[];
  };
  responseUrl: string;
  /** Who used the shortcut. @defaultValue USER_ID */
  userId?: string;
  channel?: string;
}): Record<string, unknown> {
  const ts = o.message.ts ?? nextTs();
  const author = o.message.bot_id ? { bot_id: o.message.bot_id } : { user: o.message.user ?? USER_ID };
  return {
    type: 'message_action',
    token: 'verification-token-unused',
    action_ts: `${(Date.now() / 1000).toFixed(6)}`,
    team: { id: TEAM_ID, domain: 'threadlab' },
    user: { id: o.userId ?? USER_ID, username: 'ada', team_id: TEAM_ID, name: 'ada' },
    channel: { id: o.channel ?? CHANNEL_ID, name: 'general' },
    is_enterprise_install: false,
    enterprise: null,
    callback_id: o.callbackId,
    trigger_id: `${Date.now()}.${randomUUID().slice(0, 8)}`,
    response_url: o.responseUrl,
    message_ts: ts,
    message: {
      client_msg_id: randomUUID(),
      type: 'message',
      text: o.message.text,
      ...author,
      ts,
      team: TEAM_ID,
      ...(o.message.blocks ? { blocks: o.message.blocks } : {}),
      ...(o.message.thread_ts ? { thread_ts: o.message.thread_ts } : {}),
      ...(o.message.files ? { files: o.message.files, upload: false } : {}),
    },
  };
}

/** `assistant_thread_started`: a user opened a new thread in the app's assistant container (a DM). */
export function assistantThreadStarted(o: {
  channel: string;
  thread_ts?: string;
  user?: string;
}): Record<string, unknown> {
  const threadTs = o.thread_ts ?? nextTs();
  return {
    type: 'assistant_thread_started',
    assistant_thread: {
      user_id: o.user ?? USER_ID,
      context: { channel_id: CHANNEL_ID, team_id: TEAM_ID, enterprise_id: null },
      channel_id: o.channel,
      thread_ts: threadTs,
    },
    event_ts: nextTs(),
  };
}

/** `agent_session_stopped`: the user pressed Slack's native Stop while the app was streaming. */
export function agentSessionStopped(o: {
  channel: string;
  thread_ts: string;
  streaming_message_ts?: string[];
  user?: string;
}): Record<string, unknown> {
  return {
    type: 'agent_session_stopped',
    channel: o.channel,
    user: o.user ?? USER_ID,
    thread_ts: o.thread_ts,
    streaming_message_ts: o.streaming_message_ts ?? [],
    event_ts: nextTs(),
  };
}
