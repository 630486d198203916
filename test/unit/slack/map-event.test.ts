import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  mapMessageEvent,
  type MapEventInput,
  type SlackEventBody,
  type SlackMessageEvent,
} from '../../../adapters/slack/map-event.js';
import { intentOf } from '../../../src/core/read-intent.js';
import { threadKey } from '../../../src/domain/thread-key.js';

const BOT = 'U0LAN0Z89';

function fixture(name: string): { body: SlackEventBody; event: SlackMessageEvent } {
  const body = JSON.parse(
    readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), 'utf8'),
  ) as SlackEventBody & { event: SlackMessageEvent };
  return { body, event: body.event };
}

function map(name: string, overrides: Partial<MapEventInput> = {}, event: Partial<SlackMessageEvent> = {}) {
  const f = fixture(name);
  return mapMessageEvent({
    body: f.body,
    event: { ...f.event, ...event },
    botUserId: BOT,
    followThreads: true,
    isKnownThread: () => false,
    ...overrides,
  });
}

describe('mapMessageEvent on recorded payloads', () => {
  it('maps an app_mention with files: thread root, mention stripped, Slack text decoded, files with safe names', () => {
    const result = map('app-mention-with-file');
    expect(result.kind).toBe('message');
    if (result.kind !== 'message') return;
    const m = result.message;
    expect(m.thread).toEqual({
      platform: 'slack',
      workspace: 'T061EG9R6',
      channel: 'C0LAN2Q65',
      thread: '1515449522.000016',
    });
    expect(m.text).toBe('plot revenue from sales.py & tell me if x < 3');
    expect(m.user).toEqual({ id: 'U061F7AUR' });
    expect(m.id).toBe('slack:T061EG9R6:C0LAN2Q65:1515449522.000016');
    expect(m.receivedAtMs).toBe(1515449522000);
    expect(m.attachments).toEqual([
      {
        id: 'F0CSV0001',
        name: 'sales_Q1.csv',
        mime: 'text/csv',
        bytes: 2048,
        url: 'https://files.slack.com/files-pri/T061EG9R6-F0CSV0001/download/sales_q1.csv',
      },
      { id: 'F0IDONLY1', name: 'F0IDONLY1' }, // id only: looked up with files.info when downloaded
    ]);
    expect(m.command).toBeUndefined();
  });

  it('keeps the thread of a mention inside a thread', () => {
    const result = map('app-mention-with-file', {}, { thread_ts: '1515449000.000001' });
    expect(result.kind === 'message' && result.message.thread.thread).toBe('1515449000.000001');
  });

  it('maps a direct message without a mention, with the sender name', () => {
    const result = map('message-im');
    expect(result.kind).toBe('message');
    if (result.kind !== 'message') return;
    expect(result.message.text).toBe('what is 2**100?');
    expect(result.message.thread).toMatchObject({ channel: 'D0DMCHAN1', thread: '1515449700.000300' });
    expect(result.message.user).toEqual({ id: 'U061F7AUR', name: 'Ada' });
    expect(result.message.replyContext).toMatchObject({ channelType: 'im' });
  });

  it('follows a thread the bot is in, without a mention', () => {
    const seen: string[] = [];
    const result = map('message-thread-reply', {
      isKnownThread: (ref) => {
        seen.push(threadKey(ref));
        return true;
      },
    });
    expect(result.kind).toBe('message');
    expect(result.kind === 'message' && result.message.thread.thread).toBe('1515449522.000016');
    expect(seen).toEqual(['slack:T061EG9R6:C0LAN2Q65:1515449522.000016']);
  });

  it('follows a thread the bot started (parent_user_id is the bot) even when not remembered', () => {
    expect(map('message-thread-reply', {}, { parent_user_id: BOT }).kind).toBe('message');
  });

  it('ignores thread replies in threads the bot is not in, and all follow-ups when following is off', () => {
    expect(map('message-thread-reply')).toEqual({ kind: 'ignore', reason: 'thread the bot is not in' });
    expect(map('message-thread-reply', { followThreads: false, isKnownThread: () => true })).toEqual({
      kind: 'ignore',
      reason: 'thread follow-ups are off',
    });
  });

  it('ignores channel messages without a thread, and the message copy of a mention', () => {
    expect(map('message-thread-reply', {}, { thread_ts: undefined }).kind).toBe('ignore');
    const copy = map('message-thread-reply', { isKnownThread: () => true }, { text: `<@${BOT}> hi` });
    expect(copy).toEqual({ kind: 'ignore', reason: 'channel mention (handled as app_mention)' });
  });

  it('ignores edits, deletions, other bots and its own messages without throwing', () => {
    expect(map('message-changed')).toEqual({ kind: 'ignore', reason: 'subtype message_changed' });
    expect(map('message-deleted')).toEqual({ kind: 'ignore', reason: 'subtype message_deleted' });
    expect(map('bot-message', { isKnownThread: () => true })).toEqual({
      kind: 'ignore',
      reason: 'subtype bot_message',
    });
    expect(map('message-thread-reply', { isKnownThread: () => true }, { bot_id: 'B1' }).kind).toBe('ignore');
    expect(map('message-im', {}, { user: BOT })).toEqual({ kind: 'ignore', reason: 'own message' });
    expect(
      mapMessageEvent({
        body: {},
        event: { type: 'message' },
        botUserId: BOT,
        followThreads: true,
        isKnownThread: () => true,
      }).kind,
    ).toBe('ignore');
  });

  it('gives both copies of one post (app_mention and message) the same id', () => {
    const mention = map('app-mention-with-file');
    const dm = map('message-im', {}, { channel: 'C0LAN2Q65', channel_type: 'im', ts: '1515449522.000016' });
    expect(mention.kind === 'message' && dm.kind === 'message' && mention.message.id === dm.message.id).toBe(true);
  });

  it('turns a message that is only reset, files, help or stop into that command', () => {
    // The adapter maps the text; the core's intentOf reads the word as the command.
    const result = map('message-im', {}, { text: ' Stop ' });
    expect(result.kind === 'message' && intentOf(result.message)).toEqual({ kind: 'stop' });
    const question = map('message-im', {}, { text: 'help me plot this' });
    expect(question.kind === 'message' && intentOf(question.message)).toEqual({
      kind: 'ask',
      text: 'help me plot this',
    });
  });
});
