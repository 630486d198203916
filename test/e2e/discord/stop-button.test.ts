import { afterEach, describe, expect, it } from 'vitest';
import { textReply } from '../../../src/domain/reply.js';
import { threadKey } from '../../../src/domain/thread-key.js';
import { payloads } from '../../fakes/fake-discord/index.js';
import { startHarness, type Harness } from './harness.js';

describe('Discord: the Stop button', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
  });

  it('cancels the run of its thread and acknowledges the press ephemerally', async () => {
    let release!: () => void;
    h = await startHarness(() => textReply('Stopped.', 'notice'));
    const { fake, handler } = h;
    handler.hold = new Promise<void>((r) => (release = r));
    const question = fake.userMessage({
      channelId: fake.textChannelId,
      content: `<@${fake.bot.id}> loop forever`,
      mentionBot: true,
    });
    const threadId = String(question.id);
    const statusReq = await fake.waitForRequest(
      (r) => r.method === 'POST' && r.path === `/channels/${threadId}/messages` && r.json?.components?.length > 0,
    );
    const customId: string = statusReq.json.components[0].components[0].custom_id;
    const statusMessage = [...fake.messages.values()].find(
      (m) => (m.components as unknown[] | undefined)?.length && m.channel_id === threadId,
    )!;

    const press = fake.interaction(
      payloads.buttonPress({
        applicationId: fake.applicationId,
        guildId: fake.guildId,
        channel: { id: threadId, type: 11, parent_id: fake.textChannelId },
        user: fake.human,
        customId,
        message: statusMessage,
      }),
    );
    const ack = await fake.waitForRequest((r) => r.path === `/interactions/${press.id}/${press.token}/callback`);
    expect(ack.json).toMatchObject({ type: 4, data: { flags: 64 } });
    await fake.waitForRequest(() => handler.cancelled.length === 1);
    expect(handler.cancelled[0]).toBe(
      threadKey({ platform: 'discord', workspace: fake.guildId, channel: fake.textChannelId, thread: threadId }),
    );
    release();
    await fake.waitForRequest(
      (r) => r.method === 'DELETE' && r.path === `/channels/${threadId}/messages/${statusMessage.id}`,
    );
  });
});
