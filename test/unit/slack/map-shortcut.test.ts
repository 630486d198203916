import { describe, expect, it } from 'vitest';
import { mapShortcut, shortcutCodeText, type SlackMessageShortcut } from '../../../adapters/slack/map-shortcut.js';
import { messageShortcut, richText } from '../../fakes/fake-slack/index.js';

const shortcut = (message: Parameters<typeof messageShortcut>[0]['message'], userId = 'U0INVOKE1') =>
  messageShortcut({
    callbackId: 'run_in_threadlab',
    message,
    userId,
    responseUrl: 'http://127.0.0.1:1/r',
  }) as unknown as SlackMessageShortcut;

describe('mapShortcut (message_action payloads)', () => {
  it('names the invoker as the user and the author as the source; a bot-written message has no author', () => {
    const fromPerson = mapShortcut(shortcut({ ts: '1.000100', user: 'U0AUTHOR1', text: '```print(1)```' }), 5);
    expect(fromPerson).toMatchObject({
      user: { id: 'U0INVOKE1' },
      source: { messageId: '1.000100', authorId: 'U0AUTHOR1' },
      thread: { channel: 'C0CHAN01', thread: '1.000100' },
      command: { name: 'runMessage', text: '```print(1)```' },
    });
    const fromBot = mapShortcut(shortcut({ ts: '1.000200', bot_id: 'B0OTHER', text: '```print(1)```' }), 5);
    expect(fromBot?.source).toEqual({ messageId: '1.000200', authorId: null });
  });

  it('refuses a payload without a message, user or channel', () => {
    const body = shortcut({ text: 'x' }) as unknown as Record<string, unknown>;
    expect(mapShortcut({ ...body, message: undefined } as unknown as SlackMessageShortcut, 1)).toBeUndefined();
    expect(mapShortcut({ ...body, user: {} } as unknown as SlackMessageShortcut, 1)).toBeUndefined();
    expect(mapShortcut({ ...body, channel: {} } as unknown as SlackMessageShortcut, 1)).toBeUndefined();
  });

  it('keeps at most 20 of the message’s files', () => {
    const files = Array.from({ length: 30 }, (_, i) => ({
      id: `F${i}`,
      name: `f${i}.csv`,
      mimetype: 'text/csv',
      size: 1,
      url_private_download: `http://127.0.0.1:1/files/F${i}`,
    }));
    expect(mapShortcut(shortcut({ text: 'data', files }), 1)?.attachments).toHaveLength(20);
  });

  it('reads preformatted blocks as fences (links, mentions and emoji as text), and stops at 5000 elements', () => {
    const block = {
      type: 'rich_text',
      elements: [
        {
          type: 'rich_text_preformatted',
          elements: [
            { type: 'text', text: 'r\nurl <- "' },
            { type: 'link', url: 'http://example.invalid/a.csv' },
            { type: 'text', text: '" # ' },
            { type: 'user', user_id: 'U1' },
            { type: 'emoji', name: 'tada' },
          ],
        },
      ],
    };
    expect(shortcutCodeText({ text: 'ignored', blocks: [block] })).toBe(
      '```r\nurl <- "http://example.invalid/a.csv" # @U1:tada:\n```',
    );
    const many = {
      type: 'rich_text_preformatted',
      elements: Array.from({ length: 6000 }, () => ({ type: 'text', text: 'x' })),
    };
    expect(shortcutCodeText({ blocks: [{ type: 'rich_text', elements: [many] }] })).toBe(
      `\`\`\`\n${'x'.repeat(5000)}\n\`\`\``,
    );
    // Without preformatted blocks, the text as Slack escaped it, decoded.
    expect(shortcutCodeText({ text: '```a &lt;- 1```', blocks: [richText([{ text: 'only words' }])] })).toBe(
      '```a <- 1```',
    );
  });
});
