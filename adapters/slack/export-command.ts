import type { InboundMessage } from '../../src/domain/messages.js';
import { decodeSlackText } from './slack-text.js';
import type { SlackCommandBody } from './map-command.js';

/** What `/interpreter export …` asks for: the thread a link names, or why it cannot be answered. */
export type ExportCommand = { kind: 'export'; message: InboundMessage } | { kind: 'invalid'; error: string };

/** A message link as Slack's "Copy link" writes it: `…/archives/<channel>/p<ts digits>[?thread_ts=<ts>…]`. */
const LINK = /^https:\/\/[A-Za-z0-9.-]+\.slack\.com\/archives\/([A-Z0-9]{1,32})\/p(\d{10})(\d{6})(?:\?(\S*))?$/;
const TS = /^\d{10}\.\d{6}$/;

/** The channel and thread ts a message link names (a reply's link names its thread through `thread_ts`). */
export function parseThreadLink(text: string): { channel: string; threadTs: string } | undefined {
  const match = LINK.exec(text.trim());
  if (!match) return undefined;
  const own = `${match[2]}.${match[3]}`;
  const threadTs = new URLSearchParams(match[4] ?? '').get('thread_ts') ?? own;
  return TS.test(threadTs) ? { channel: match[1]!, threadTs } : undefined;
}

/**
 * `/interpreter export <link to a thread>`: Slack does not say which thread a slash command was typed in, so the
 * thread comes as its link, and only a thread of the channel the command was typed in is exported (the user is
 * there). The answer goes into that thread. Without a link, the error says how to ask.
 */
export function exportCommand(body: SlackCommandBody, botUserId: string | undefined, nowMs: number): ExportCommand {
  const text = decodeSlackText(body.text ?? '').trim();
  const rest = text.replace(/^export\b/i, '').trim();
  const how =
    `In the thread you mean, send \`export\` as a message (or \`<@${botUserId ?? 'Threadlab'}> export\`), ` +
    `or use \`${body.command} export <link to the thread>\` (the thread's "Copy link").`;
  if (rest === '')
    return { kind: 'invalid', error: `Slack does not tell me which thread a slash command comes from. ${how}` };
  const link = parseThreadLink(rest);
  if (!link) return { kind: 'invalid', error: `That is not a link to a Slack thread. ${how}` };
  if (link.channel !== body.channel_id)
    return { kind: 'invalid', error: `That thread is in another channel: use the command in that channel. ${how}` };
  return {
    kind: 'export',
    message: {
      id: `slack:${body.team_id}:${body.channel_id}:export:${body.trigger_id ?? nowMs}`,
      thread: { platform: 'slack', workspace: body.team_id, channel: body.channel_id, thread: link.threadTs },
      user: { id: body.user_id, ...(body.user_name ? { name: body.user_name } : {}) },
      text: '',
      attachments: [],
      command: { name: 'export' },
      receivedAtMs: nowMs,
      replyContext: { ts: link.threadTs, responseUrl: body.response_url ?? null, slashCommand: body.command },
    },
  };
}
