import type { InboundAttachment, InboundMessage } from '../../src/domain/messages.js';
import type { ThreadRef } from '../../src/domain/thread-key.js';
import { safeFileName } from '../../src/domain/file-names.js';
import { mentionsBot, stripBotMention } from './slack-text.js';
import { withTypedCommand } from '../../src/domain/typed-command.js';
import { SLACK_COMMAND_TYPING } from './profile.js';

/** The fields of a Slack file object Threadlab reads. */
export interface SlackFile {
  id: string;
  name?: string;
  title?: string;
  mimetype?: string;
  size?: number;
  url_private_download?: string;
  url_private?: string;
  /** `check_file_info`: only the id was sent; the file must be fetched with `files.info`. */
  file_access?: string;
}

/** The fields of `app_mention` and `message` events Threadlab reads. */
export interface SlackMessageEvent {
  type: string;
  subtype?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
  channel?: string;
  channel_type?: string;
  team?: string;
  files?: SlackFile[];
  client_msg_id?: string;
  parent_user_id?: string;
  user_profile?: { name?: string; display_name?: string; real_name?: string };
}

/** The envelope around an event (`event_callback`). */
export interface SlackEventBody {
  team_id?: string;
  event_id?: string;
  event_time?: number;
  authorizations?: { team_id?: string | null }[];
}

export interface MapEventInput {
  event: SlackMessageEvent;
  body: SlackEventBody;
  /** The bot's own user id, from `auth.test`. */
  botUserId: string;
  /** Whether thread replies without a mention continue a session the bot is in. */
  followThreads: boolean;
  /** Whether the bot already answered in this thread. */
  isKnownThread: (ref: ThreadRef) => boolean;
}

export type MapEventResult = { kind: 'message'; message: InboundMessage } | { kind: 'ignore'; reason: string };

/** Subtypes that carry a new message from a person; edits, deletions, joins and the like do not. */
const HANDLED_SUBTYPES = new Set([undefined, 'file_share', 'thread_broadcast']);

/**
 * Maps an `app_mention` or `message` event to an InboundMessage, or says why it is ignored. Pure: the
 * same payload always maps the same way, so recorded payloads are its tests.
 *
 * One post can arrive twice (as `app_mention` and as `message`); the `message` copy of a channel
 * mention is ignored, and both copies would carry the same id (channel + ts) anyway.
 */
export function mapMessageEvent(input: MapEventInput): MapEventResult {
  const { event, body, botUserId } = input;
  if (event.type !== 'app_mention' && event.type !== 'message') return ignore(`event type ${event.type}`);
  if (!HANDLED_SUBTYPES.has(event.subtype)) return ignore(`subtype ${event.subtype}`);
  if (event.bot_id || event.subtype === 'bot_message') return ignore('from a bot');
  if (!event.user || !event.channel || !event.ts) return ignore('missing user, channel or ts');
  if (event.user === botUserId) return ignore('own message');

  const workspace = body.team_id ?? body.authorizations?.[0]?.team_id ?? event.team ?? 'unknown';
  const isDm = event.channel_type === 'im' || event.channel.startsWith('D');
  const thread: ThreadRef = {
    platform: 'slack',
    workspace,
    channel: event.channel,
    thread: event.thread_ts ?? event.ts,
  };

  if (event.type === 'message' && !isDm) {
    if (mentionsBot(event.text, botUserId)) return ignore('channel mention (handled as app_mention)');
    if (!event.thread_ts) return ignore('channel message without a mention');
    const ownThread = event.parent_user_id === botUserId || input.isKnownThread(thread);
    if (!input.followThreads) return ignore('thread follow-ups are off');
    if (!ownThread) return ignore(NOT_IN_THREAD);
  }

  // A word such as `reset` in a thread is that command; code or a question is the core's to read.
  const text = stripBotMention(event.text ?? '', botUserId);
  const name = event.user_profile?.display_name || event.user_profile?.name || event.user_profile?.real_name;
  const message: InboundMessage = {
    id: `slack:${workspace}:${event.channel}:${event.ts}`,
    thread,
    user: { id: event.user, ...(name ? { name } : {}) },
    text,
    attachments: (event.files ?? []).map(mapFile),
    receivedAtMs: Math.round(Number.parseFloat(event.ts) * 1000),
    replyContext: {
      ts: event.ts,
      channelType: event.channel_type ?? null,
      inThread: event.thread_ts !== undefined,
      eventId: body.event_id ?? null,
    },
  };
  return { kind: 'message', message: withTypedCommand(message, SLACK_COMMAND_TYPING) };
}

/** Maps a Slack file to an attachment; a file given by id only keeps no URL and is looked up when downloaded. */
export function mapFile(file: SlackFile): InboundAttachment {
  const idOnly = file.file_access === 'check_file_info' || !(file.url_private_download ?? file.url_private);
  return {
    id: file.id,
    name: safeFileName(file.name ?? file.title ?? file.id, file.id),
    ...(file.mimetype ? { mime: file.mimetype } : {}),
    ...(typeof file.size === 'number' ? { bytes: file.size } : {}),
    ...(idOnly ? {} : { url: file.url_private_download ?? file.url_private }),
  };
}

/** Why a thread follow-up without a mention is ignored when the bot is not known to be in the thread. */
export const NOT_IN_THREAD = 'thread the bot is not in';

function ignore(reason: string): MapEventResult {
  return { kind: 'ignore', reason };
}
