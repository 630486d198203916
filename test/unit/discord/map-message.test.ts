import { SnowflakeUtil } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { routeMessage, threadName, toInboundMessage, type MessageView } from '../../../adapters/discord/map-message.js';
import { safeFileName } from '../../../src/domain/file-names.js';
import { viewFromMessage } from '../../../adapters/discord/views.js';
import {
  ada,
  BOT_ID,
  BOT_THREAD_ID,
  csvAttachment,
  DM_ID,
  FORUM_ID,
  FORUM_POST_ID,
  GUILD_ID,
  messageCreate,
  offlineClient,
  otherBot,
  TEXT_ID,
  toMessage,
} from './recorded.js';

const botUser = { id: BOT_ID, username: 'threadlab', global_name: null, discriminator: '0', avatar: null, bot: true };

function view(payload: ReturnType<typeof messageCreate>): MessageView {
  return viewFromMessage(toMessage(offlineClient(), payload));
}

describe('Discord message mapping (recorded payloads through discord.js)', () => {
  it('a mention in a text channel starts a thread named from the request', () => {
    const v = view(
      messageCreate({
        channelId: TEXT_ID,
        content: `<@${BOT_ID}> **plot** sales by month\nusing the csv`,
        mentions: [botUser],
      }),
    );
    expect(v.channel).toEqual({ id: TEXT_ID, type: 0, parentId: null });
    expect(routeMessage(v, { botUserId: BOT_ID, followsThread: false })).toEqual({
      action: 'start_thread',
      name: 'plot sales by month',
    });
  });

  it('maps the thread it started to a ThreadRef keyed by guild, parent channel and thread', () => {
    const v = view(
      messageCreate({
        id: '1180000000000001234',
        channelId: TEXT_ID,
        content: `<@!${BOT_ID}>  mean of x?`,
        attachments: [csvAttachment],
      }),
    );
    const ref = { platform: 'discord' as const, workspace: GUILD_ID, channel: TEXT_ID, thread: '1180000000000001234' };
    const inbound = toInboundMessage(v, ref, BOT_ID);
    expect(inbound).toMatchObject({
      id: 'discord:message:1180000000000001234',
      thread: ref,
      user: { id: ada.id, name: 'Ada L.', isBot: false },
      text: 'mean of x?',
      replyContext: { kind: 'channel', channelId: '1180000000000001234', messageId: '1180000000000001234' },
    });
    expect(inbound.attachments).toEqual([
      {
        id: csvAttachment.id,
        name: 'sales_2026.csv',
        bytes: 48213,
        url: csvAttachment.url,
        mime: 'text/csv; charset=utf-8',
      },
    ]);
    expect(inbound.receivedAtMs).toBe(SnowflakeUtil.timestampFrom('1180000000000001234'));
  });

  it('continues a thread the bot follows without a mention, and ignores unaddressed threads and channels', () => {
    const inThread = view(messageCreate({ channelId: BOT_THREAD_ID, content: 'and now by region' }));
    expect(inThread.channel).toEqual({ id: BOT_THREAD_ID, type: 11, parentId: TEXT_ID });
    expect(routeMessage(inThread, { botUserId: BOT_ID, followsThread: true })).toEqual({
      action: 'answer',
      mentioned: false,
      ref: { platform: 'discord', workspace: GUILD_ID, channel: TEXT_ID, thread: BOT_THREAD_ID },
    });
    expect(routeMessage(inThread, { botUserId: BOT_ID, followsThread: false })).toMatchObject({
      action: 'ignore',
      reason: 'not_addressed',
    });
    const chatter = view(messageCreate({ channelId: TEXT_ID, content: 'lunch?' }));
    expect(routeMessage(chatter, { botUserId: BOT_ID, followsThread: false })).toMatchObject({ action: 'ignore' });
  });

  it('a mention inside a forum post uses that post as the thread', () => {
    const v = view(
      messageCreate({ channelId: FORUM_POST_ID, content: `<@${BOT_ID}> can you pivot this?`, mentions: [botUser] }),
    );
    expect(routeMessage(v, { botUserId: BOT_ID, followsThread: false })).toEqual({
      action: 'answer',
      mentioned: true,
      ref: { platform: 'discord', workspace: GUILD_ID, channel: FORUM_ID, thread: FORUM_POST_ID },
    });
  });

  it('direct messages are answered without a mention, in workspace "dm"', () => {
    const v = view(messageCreate({ channelId: DM_ID, content: 'hello', guild: false, channelType: 1 }));
    expect(v.guildId).toBeNull();
    expect(routeMessage(v, { botUserId: BOT_ID, followsThread: false })).toEqual({
      action: 'answer',
      mentioned: false,
      ref: { platform: 'discord', workspace: 'dm', channel: DM_ID, thread: DM_ID },
    });
  });

  it('ignores bots (including itself) and empty mentions', () => {
    const fromBot = view(
      messageCreate({ channelId: TEXT_ID, content: `<@${BOT_ID}> hi`, author: otherBot, mentions: [botUser] }),
    );
    expect(routeMessage(fromBot, { botUserId: BOT_ID, followsThread: true })).toEqual({
      action: 'ignore',
      reason: 'bot',
    });
    const self = view(messageCreate({ channelId: BOT_THREAD_ID, content: 'answer', author: botUser }));
    expect(routeMessage(self, { botUserId: BOT_ID, followsThread: true })).toEqual({ action: 'ignore', reason: 'bot' });
    const empty = view(messageCreate({ channelId: TEXT_ID, content: `<@${BOT_ID}>`, mentions: [botUser] }));
    expect(routeMessage(empty, { botUserId: BOT_ID, followsThread: false })).toEqual({
      action: 'ignore',
      reason: 'empty',
    });
  });

  it('a mention with only an attachment is answered, and the thread is named after the file', () => {
    const v = view(
      messageCreate({ channelId: TEXT_ID, content: `<@${BOT_ID}>`, mentions: [botUser], attachments: [csvAttachment] }),
    );
    expect(routeMessage(v, { botUserId: BOT_ID, followsThread: false })).toEqual({
      action: 'start_thread',
      name: 'Analysis of sales 2026.csv',
    });
  });
});

describe('thread names and file names', () => {
  it('keeps thread names within 100 characters, cut at a word', () => {
    const name = threadName('word '.repeat(60));
    expect(name.length).toBeLessThanOrEqual(100);
    expect(name.endsWith('…')).toBe(true);
    expect(threadName('```py\nprint(1)\n```\nrun this <@123> please')).toBe('run this please');
  });

  it('makes attachment names safe', () => {
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('..\\evil.csv')).toBe('evil.csv');
    expect(safeFileName('.bashrc')).toBe('bashrc');
    expect(safeFileName('a;rm -rf $HOME.txt')).toBe('a_rm_-rf_HOME.txt');
    expect(safeFileName('\u0000')).toBe('file');
    const long = safeFileName(`${'x'.repeat(300)}.xlsx`);
    expect(long.length).toBe(100);
    expect(long.endsWith('.xlsx')).toBe(true);
  });
});
