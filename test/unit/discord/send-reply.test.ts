import { DiscordAPIError } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { sendMessages } from '../../../adapters/discord/send-reply.js';
import type { OutgoingMessage, ReplyTarget } from '../../../adapters/discord/target.js';
import { createLogger } from '../../../src/logger.js';

const tooLarge = () =>
  new DiscordAPIError(
    { code: 40005, message: 'Request entity too large' },
    40005,
    413,
    'POST',
    'http://x/channels/1/messages',
    { body: undefined, files: undefined },
  );

/** A target that refuses any message carrying a file bigger than `limit`, and records the rest. */
function target(limit: number): ReplyTarget & { sent: OutgoingMessage[] } {
  const sent: OutgoingMessage[] = [];
  return {
    channelId: 'c',
    sent,
    async post(m) {
      if (m.files.some((f) => f.data.length > limit)) throw tooLarge();
      sent.push(m);
      return String(sent.length);
    },
    async edit() {},
    async remove() {},
    async typing() {},
  };
}

const logger = createLogger({ level: 'silent' });
const file = (name: string, bytes: number) => ({ name, mime: 'application/octet-stream', data: Buffer.alloc(bytes) });

describe('sendMessages', () => {
  it('on a 413, sends the text, the files that fit, and names each refused file with its size and the limit', async () => {
    const t = target(1000);
    await sendMessages(
      t,
      [{ content: 'results', files: [file('ok.csv', 500), file('huge.parquet', 3 * 1024 * 1024)] }],
      { limitBytes: 8 * 1024 * 1024, logger },
    );
    expect(t.sent.map((m) => [m.content, m.files.map((f) => f.name)])).toEqual([
      ['results', []],
      ['', ['ok.csv']],
      [expect.stringContaining('`huge.parquet` (3.0 MB)'), []],
    ]);
    expect(t.sent[2]?.content).toContain('8.0 MB');
  });

  it('other failures become platform_api errors', async () => {
    const t: ReplyTarget = {
      channelId: 'c',
      post: async () => {
        throw new DiscordAPIError({ code: 50013, message: 'Missing Permissions' }, 50013, 403, 'POST', 'u', {
          body: undefined,
          files: undefined,
        });
      },
      edit: async () => {},
      remove: async () => {},
      typing: async () => {},
    };
    await expect(sendMessages(t, [{ content: 'x', files: [] }], { limitBytes: 1, logger })).rejects.toMatchObject({
      code: 'platform_api',
      isRetryable: false,
    });
  });
});
