import type { InboundAttachment, InboundMessage } from '../../src/domain/messages.js';
import type { ThreadRef } from '../../src/domain/thread-key.js';
import { safeFileName } from '../../src/domain/file-names.js';
import { withTypedCommand } from '../../src/domain/typed-command.js';
import { discordProfile } from './profile.js';

/** Discord channel types the adapter tells apart (values of discord-api-types' ChannelType). */
export const CHANNEL = {
  GuildText: 0,
  DM: 1,
  GuildAnnouncement: 5,
  AnnouncementThread: 10,
  PublicThread: 11,
  PrivateThread: 12,
  GuildForum: 15,
} as const;

const THREAD_TYPES: readonly number[] = [CHANNEL.AnnouncementThread, CHANNEL.PublicThread, CHANNEL.PrivateThread];
/** Channels a thread can be started from a message in. */
const THREADABLE_TYPES: readonly number[] = [CHANNEL.GuildText, CHANNEL.GuildAnnouncement];

/** The facts of a Discord message the adapter decides on: plain data, built from discord.js or a recorded payload. */
export interface MessageView {
  id: string;
  content: string;
  createdAtMs: number;
  author: { id: string; name: string; bot: boolean };
  /** `null` in direct messages. */
  guildId: string | null;
  channel: { id: string; type: number; parentId: string | null };
  /** User ids mentioned by the message (`<@id>`), as Discord resolved them. */
  mentionedUserIds: string[];
  attachments: { id: string; filename: string; size: number; url: string; contentType: string | null }[];
  /** The author's guild role ids (bounded, snowflakes only: member-roles.ts); absent in DMs. */
  roles?: string[];
}

/** What to do with a message. */
export type MessageRoute =
  | { action: 'ignore'; reason: 'bot' | 'not_addressed' | 'empty' }
  | { action: 'start_thread'; name: string }
  | { action: 'answer'; ref: ThreadRef; mentioned: boolean };

export interface RouteContext {
  botUserId: string;
  /** Whether the bot follows the thread the message is in (it created or joined it, or was mentioned there). */
  followsThread: boolean;
}

export function isThreadType(type: number): boolean {
  return THREAD_TYPES.includes(type);
}

/** Whether the message addresses the bot by mention (a resolved mention or the raw `<@id>` form). */
export function mentionsBot(view: MessageView, botUserId: string): boolean {
  return view.mentionedUserIds.includes(botUserId) || new RegExp(`<@!?${botUserId}>`).test(view.content);
}

/** The message text with mentions of the bot removed and whitespace trimmed. */
export function stripBotMention(content: string, botUserId: string): string {
  return content
    .replace(new RegExp(`<@!?${botUserId}>`, 'g'), '')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

/**
 * Decides how a message reaches the core: bots are ignored; DMs are always answered; a mention in a text
 * channel starts a thread; a thread the bot follows continues without a mention; a mention inside any
 * other thread (or forum post) uses that thread.
 */
export function routeMessage(view: MessageView, context: RouteContext): MessageRoute {
  if (view.author.bot || view.author.id === context.botUserId) return { action: 'ignore', reason: 'bot' };
  const mentioned = mentionsBot(view, context.botUserId);
  const text = stripBotMention(view.content, context.botUserId);
  if (!text && view.attachments.length === 0) return { action: 'ignore', reason: 'empty' };
  if (view.guildId === null) {
    return {
      action: 'answer',
      mentioned,
      ref: { platform: 'discord', workspace: 'dm', channel: view.channel.id, thread: view.channel.id },
    };
  }
  if (isThreadType(view.channel.type)) {
    if (!mentioned && !context.followsThread) return { action: 'ignore', reason: 'not_addressed' };
    const parent = view.channel.parentId ?? view.channel.id;
    return {
      action: 'answer',
      mentioned,
      ref: { platform: 'discord', workspace: view.guildId, channel: parent, thread: view.channel.id },
    };
  }
  if (!mentioned) return { action: 'ignore', reason: 'not_addressed' };
  if (THREADABLE_TYPES.includes(view.channel.type))
    return { action: 'start_thread', name: threadName(text, view.attachments[0]?.filename) };
  return {
    action: 'answer',
    mentioned,
    ref: { platform: 'discord', workspace: view.guildId, channel: view.channel.id, thread: view.channel.id },
  };
}

/** Discord's limit on a thread name. */
export const THREAD_NAME_MAX_CHARS = 100;

/** A thread name from the request: its first line without markdown noise, at most 100 characters. */
export function threadName(text: string, fallbackFile?: string): string {
  const firstLine = text
    .replace(/```[\s\S]*?(```|$)/g, ' ')
    .split('\n')
    .map((l) =>
      l
        .replace(/<[@#][!&]?\d+>/g, '')
        .replace(/[*_~`>|#]+/g, '')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .find((l) => l.length > 0);
  const base = firstLine ?? (fallbackFile ? `Analysis of ${fallbackFile}` : 'Threadlab session');
  if (base.length <= THREAD_NAME_MAX_CHARS) return base;
  const cut = base.slice(0, THREAD_NAME_MAX_CHARS - 1);
  const atWord = cut.lastIndexOf(' ');
  return `${(atWord > 60 ? cut.slice(0, atWord) : cut).trimEnd()}…`;
}

/** Maps Discord attachments to the core's description of them (bytes are fetched later by `download`). */
export function toInboundAttachments(view: Pick<MessageView, 'attachments'>): InboundAttachment[] {
  return view.attachments.map((a) => ({
    id: a.id,
    name: safeFileName(a.filename),
    bytes: a.size,
    url: a.url,
    ...(a.contentType ? { mime: a.contentType } : {}),
  }));
}

/**
 * The InboundMessage for an answered message (`export` typed alone is that command); the reply goes to the
 * thread's channel.
 */
export function toInboundMessage(view: MessageView, ref: ThreadRef, botUserId: string): InboundMessage {
  const message: InboundMessage = {
    id: `discord:message:${view.id}`,
    thread: ref,
    user: {
      id: view.author.id,
      name: view.author.name,
      isBot: view.author.bot,
      ...(view.roles ? { roles: view.roles } : {}),
    },
    text: stripBotMention(view.content, botUserId),
    attachments: toInboundAttachments(view),
    receivedAtMs: view.createdAtMs,
    replyContext: { kind: 'channel', channelId: ref.thread, messageId: view.id },
  };
  return withTypedCommand(message, discordProfile.commandTyping);
}
