import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mapEditEvent, type SlackMessageChangedEvent } from '../../../adapters/slack/map-edit.js';
import type { SlackEventBody } from '../../../adapters/slack/map-event.js';

const BOT = 'U0LAN0Z89';
const recorded = JSON.parse(
  readFileSync(new URL('./fixtures/message-changed.json', import.meta.url), 'utf8'),
) as SlackEventBody & { event: SlackMessageChangedEvent };

function map(change: (e: SlackMessageChangedEvent) => void = () => undefined, known = false) {
  const event = structuredClone(recorded.event);
  change(event);
  return mapEditEvent({ event, body: recorded, botUserId: BOT, followThreads: true, isKnownThread: () => known });
}

describe('mapEditEvent on a recorded message_changed payload', () => {
  it('maps the edited message as an edit of the original: own id per edit, original id, text without the mention', () => {
    const result = map();
    expect(result.kind).toBe('message');
    if (result.kind !== 'message') return;
    expect(result.message.id).toBe('slack:T061EG9R6:C0LAN2Q65:1515449522.000016:edit:1515449800.000000');
    expect(result.message.edit).toEqual({
      originalId: 'slack:T061EG9R6:C0LAN2Q65:1515449522.000016',
      previousText: 'original',
    });
    expect(result.message.text).toBe('edited');
    expect(result.message.user.id).toBe('U061F7AUR');
    expect(result.message.thread.thread).toBe('1515449522.000016');
  });

  it("ignores a bot's edit, our own, an admin's, Slack's own change and an unchanged text", () => {
    expect(map((e) => (e.message!.bot_id = 'B1'))).toEqual({ kind: 'ignore', reason: 'a bot edit' });
    expect(map((e) => (e.message!.user = BOT))).toEqual({ kind: 'ignore', reason: 'a bot edit' });
    expect(map((e) => (e.message!.edited!.user = 'UADMIN'))).toEqual({
      kind: 'ignore',
      reason: 'edited by someone else',
    });
    expect(map((e) => delete e.message!.edited)).toEqual({ kind: 'ignore', reason: 'not an edit by a person' });
    expect(map((e) => (e.message!.text = e.previous_message!.text))).toEqual({
      kind: 'ignore',
      reason: 'text unchanged',
    });
  });

  it('a thread reply without a mention is an edit only in a thread the bot is in', () => {
    const reply = (e: SlackMessageChangedEvent) => {
      e.message!.text = 'plain follow-up';
      e.message!.thread_ts = '1515449000.000001';
    };
    expect(map(reply)).toMatchObject({ kind: 'ignore' });
    expect(map(reply, true)).toMatchObject({ kind: 'message', message: { thread: { thread: '1515449000.000001' } } });
  });
});
