import { languageFromLabel } from '../../src/domain/execution.js';
import type { InboundMessage } from '../../src/domain/messages.js';
import { mapFile, type SlackFile } from './map-event.js';
import { decodeSlackText } from './slack-text.js';

/** The callback id of the message shortcut "Run in Threadlab" (manifest.yml). */
export const RUN_SHORTCUT_CALLBACK_ID = 'run_in_threadlab';

/** A rich text element as Slack sends it inside a block (only what code needs). */
interface RichElement {
  type?: string;
  text?: string;
  url?: string;
  user_id?: string;
  channel_id?: string;
  name?: string;
  elements?: RichElement[];
}

/** The fields of a `message_action` payload (a message shortcut) Threadlab reads. */
export interface SlackMessageShortcut {
  type: 'message_action';
  callback_id: string;
  trigger_id?: string;
  action_ts?: string;
  response_url?: string;
  message_ts?: string;
  team?: { id?: string; domain?: string } | null;
  user?: { id?: string; name?: string; username?: string };
  channel?: { id?: string; name?: string };
  message?: {
    type?: string;
    user?: string;
    bot_id?: string;
    ts?: string;
    thread_ts?: string;
    text?: string;
    blocks?: { type?: string; elements?: RichElement[] }[];
    files?: SlackFile[];
  };
}

/** Largest number of rich text elements read from one message: a payload is hostile input. */
const MAX_ELEMENTS = 5000;

/**
 * The InboundMessage of "Run in Threadlab" on a message: the user who used the shortcut asks, the message's code
 * runs (its `rich_text_preformatted` blocks, else the ``` fences of its text) in the message's thread, and its
 * author is the `source`. Undefined when the payload lacks what a run needs (user, channel, message ts).
 */
export function mapShortcut(body: SlackMessageShortcut, nowMs: number): InboundMessage | undefined {
  const user = body.user?.id;
  const channel = body.channel?.id;
  const message = body.message;
  const ts = message?.ts ?? body.message_ts;
  if (!user || !channel || !message || !ts) return undefined;
  const workspace = body.team?.id ?? 'unknown';
  const code = shortcutCodeText(message);
  const name = body.user?.name ?? body.user?.username;
  return {
    id: `slack:shortcut:${workspace}:${channel}:${ts}:${body.action_ts ?? body.trigger_id ?? nowMs}`,
    thread: { platform: 'slack', workspace, channel, thread: message.thread_ts ?? ts },
    user: { id: user, ...(name ? { name } : {}) },
    text: code,
    attachments: (message.files ?? []).slice(0, 20).map(mapFile),
    command: { name: 'runMessage', text: code },
    receivedAtMs: nowMs,
    replyContext: { ts, inThread: true, responseUrl: body.response_url ?? null, shortcut: true },
    source: { messageId: ts, authorId: message.bot_id || !message.user ? null : message.user },
  };
}

/**
 * The code of a Slack message as fenced text: each `rich_text_preformatted` block (what Slack's composer makes
 * of a code block; its text is not escaped) as one fence, a first line that only names a language becoming the
 * fence's label; without such blocks, the message's own text, decoded.
 */
export function shortcutCodeText(message: NonNullable<SlackMessageShortcut['message']>): string {
  const blocks: string[] = [];
  const budget = { left: MAX_ELEMENTS };
  for (const block of message.blocks ?? []) {
    if (block.type !== 'rich_text') continue;
    for (const element of block.elements ?? []) {
      if (element.type === 'rich_text_preformatted') blocks.push(fence(plainText(element.elements ?? [], budget)));
    }
  }
  return blocks.length > 0 ? blocks.join('\n\n') : decodeSlackText(message.text ?? '');
}

function fence(code: string): string {
  const [first = '', ...rest] = code.split('\n');
  const label = first.trim();
  if (label !== '' && rest.length > 0 && languageFromLabel(label)) return `\`\`\`${label}\n${rest.join('\n')}\n\`\`\``;
  return `\`\`\`\n${code}\n\`\`\``;
}

function plainText(elements: RichElement[], budget: { left: number }): string {
  let out = '';
  for (const e of elements) {
    if (budget.left-- <= 0) break;
    if (e.type === 'text') out += e.text ?? '';
    else if (e.type === 'link') out += e.text ?? e.url ?? '';
    else if (e.type === 'user') out += `@${e.user_id ?? ''}`;
    else if (e.type === 'channel') out += `#${e.channel_id ?? ''}`;
    else if (e.type === 'emoji') out += `:${e.name ?? ''}:`;
    else if (e.elements) out += plainText(e.elements, budget);
  }
  return out;
}
