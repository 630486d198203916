import { afterEach, describe, expect, it } from 'vitest';
import { textReply } from '../../../src/domain/reply.js';
import { startHarness, type Harness } from './harness.js';

describe('Discord: a mention opens a thread', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
  });

  it('starts a public thread from the message and answers in it; later messages continue without a mention', async () => {
    h = await startHarness((m) => textReply(`You said: ${m.text}`, 'answer'));
    const { fake, handler } = h;
    const question = fake.userMessage({
      channelId: fake.textChannelId,
      content: `<@${fake.bot.id}> what is 2+2?`,
      mentionBot: true,
    });

    const threadReq = await fake.waitForRequest(
      (r) => r.method === 'POST' && r.path === `/channels/${fake.textChannelId}/messages/${question.id}/threads`,
    );
    expect(threadReq.json.name).toBe('what is 2+2?');
    const threadId = String(question.id);
    const answer = await fake.waitForRequest(
      (r) =>
        r.method === 'POST' && r.path === `/channels/${threadId}/messages` && r.json?.content?.startsWith('You said'),
    );
    expect(answer.json.content).toBe('You said: what is 2+2?');
    expect(handler.received[0]?.thread).toEqual({
      platform: 'discord',
      workspace: fake.guildId,
      channel: fake.textChannelId,
      thread: threadId,
    });
    expect(handler.received[0]?.id).toBe(`discord:message:${question.id}`);

    // the typing indicator and a status message with a Stop button were shown, and the status removed after the answer
    await fake.waitForRequest((r) => r.method === 'POST' && r.path === `/channels/${threadId}/typing`);
    const status = await fake.waitForRequest(
      (r) => r.method === 'POST' && r.path === `/channels/${threadId}/messages` && r.json?.components?.length > 0,
    );
    expect(status.json.components[0].components[0].custom_id).toMatch(/^threadlab_stop:discord:/);
    await fake.waitForRequest((r) => r.method === 'DELETE' && r.path.startsWith(`/channels/${threadId}/messages/`));

    // a follow-up in the thread without a mention is answered too
    fake.userMessage({ channelId: threadId, content: 'and 3+3?' });
    await fake.waitForRequest(
      (r) =>
        r.method === 'POST' && r.path === `/channels/${threadId}/messages` && r.json?.content === 'You said: and 3+3?',
    );
    expect(handler.received).toHaveLength(2);
    expect(handler.received[1]?.thread.thread).toBe(threadId);
    // the bot's own messages (echoed by the gateway) were ignored
    expect(handler.received.every((m) => m.user.id === fake.human.id)).toBe(true);
  });

  it('ignores channel messages without a mention and answers DMs', async () => {
    h = await startHarness((m) => textReply(`dm: ${m.text}`, 'answer'));
    const { fake, handler } = h;
    fake.userMessage({ channelId: fake.textChannelId, content: 'just chatting' });
    fake.userMessage({ channelId: fake.dmChannelId, content: 'hello bot' });
    await fake.waitForRequest(
      (r) =>
        r.method === 'POST' &&
        r.path === `/channels/${fake.dmChannelId}/messages` &&
        r.json?.content === 'dm: hello bot',
    );
    expect(handler.received).toHaveLength(1);
    expect(handler.received[0]?.thread).toMatchObject({
      workspace: 'dm',
      channel: fake.dmChannelId,
      thread: fake.dmChannelId,
    });
    expect(fake.requests.some((r) => r.path.endsWith('/threads'))).toBe(false);
  });
});
