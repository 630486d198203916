import { describe, expect, it } from 'vitest';
import {
  runThreadName,
  toRunMessage,
  withRunReference,
  type MessageCommandView,
} from '../../../adapters/discord/map-message-command.js';
import type { InboundMessage } from '../../../src/domain/messages.js';

const view: MessageCommandView = {
  id: '9001',
  token: 'itoken',
  applicationId: '42',
  commandName: 'Run code',
  guildId: '7',
  channel: { id: '100', type: 0, parentId: null },
  user: { id: '501', name: 'bob', bot: false },
  createdAtMs: 1000,
  roles: ['77'],
  target: {
    id: '300',
    content: 'see\n```py\nprint(1)\n```',
    author: { id: '502', bot: false },
    attachments: [{ id: 'a1', filename: 'data.csv', size: 4, url: 'http://127.0.0.1/a1', contentType: 'text/csv' }],
  },
};
const ref = { platform: 'discord' as const, workspace: '7', channel: '100', thread: '300' };

describe('Run code (message command) mapping', () => {
  it('makes the invoker the user (with their roles), the target the source, and answers in the thread', () => {
    expect(toRunMessage(view, ref)).toEqual({
      id: 'discord:interaction:9001',
      thread: ref,
      user: { id: '501', name: 'bob', isBot: false, roles: ['77'] },
      text: view.target.content,
      attachments: [{ id: 'a1', name: 'data.csv', bytes: 4, url: 'http://127.0.0.1/a1', mime: 'text/csv' }],
      command: { name: 'runMessage', text: view.target.content },
      receivedAtMs: 1000,
      replyContext: { kind: 'channel', channelId: '300', messageId: '300' },
      source: { messageId: '300', authorId: '502' },
    });
    // The provisional message of the access check answers through the interaction (ephemeral refusals).
    expect(toRunMessage(view, ref, 'interaction').replyContext).toMatchObject({
      kind: 'interaction',
      interactionToken: 'itoken',
      applicationId: '42',
    });
  });

  it("a bot's or webhook's message has no author to record", () => {
    const fromBot = { ...view, target: { ...view.target, author: { id: '600', bot: true } } };
    expect(toRunMessage(fromBot, ref).source).toEqual({ messageId: '300', authorId: null });
  });

  it('names the thread after the first line that is not a fence, within 100 characters', () => {
    expect(runThreadName(view)).toBe('Run: see');
    const onlyCode = { ...view, target: { ...view.target, content: '```py\nprint(1)\n```' } };
    expect(runThreadName(onlyCode)).toBe('Run: print(1)');
    const long = { ...view, target: { ...view.target, content: 'x'.repeat(300) } };
    expect(runThreadName(long).length).toBeLessThanOrEqual(100);
  });

  it('a typed run sent as a reply takes the replied-to message’s text and files, keeping its sender', () => {
    const reply: InboundMessage = {
      id: 'discord:message:1',
      thread: ref,
      user: { id: '501' },
      text: 'run',
      attachments: [],
      receivedAtMs: 1,
    };
    const referenced = {
      id: '300',
      content: '```r\nx <- 1\n```',
      attachments: [],
      author: { id: '502', name: 'ada', bot: false },
    };
    expect(withRunReference(reply, referenced)).toMatchObject({
      user: { id: '501' },
      command: { name: 'runMessage', text: '```r\nx <- 1\n```' },
      source: { messageId: '300', authorId: '502' },
    });
  });
});
