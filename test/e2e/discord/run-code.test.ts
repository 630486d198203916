/**
 * Apps → Run code (a message command) and a typed `run` sent as a reply, through the real discord.js adapter
 * against the fake Discord: the invoker's request to run another person's message, in a thread started on that
 * message, acknowledged ephemerally; a channel the bot cannot see answered to the invoker only.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { textReply } from '../../../src/domain/reply.js';
import { payloads } from '../../fakes/fake-discord/index.js';
import { startHarness, type Harness } from './harness.js';

const CODE = '```python\nprint(6 * 7)\n```';

describe('Discord: Run code on a message', () => {
  let h: Harness;
  const bob = payloads.user(payloads.snowflake(), 'bob');
  beforeEach(async () => {
    h = await startHarness((m) => textReply(`ran for ${m.user.name}`));
    await h.fake.gateway.whenIdentified();
  });
  afterEach(async () => {
    await h.stop();
  });

  /** A message ada posts without addressing the bot: it is only data until someone runs it. */
  const adaPosts = (content: string, channelId = h.fake.textChannelId) => h.fake.userMessage({ channelId, content });

  it("runs ada's code for bob in a thread started on her message, and tells bob where, privately", async () => {
    const target = adaPosts(`Here is the sum:\n${CODE}`);
    await new Promise((r) => setTimeout(r, 100));
    expect(h.handler.received).toHaveLength(0); // not addressed to the bot: nothing ran
    const interaction = h.fake.messageCommand({ name: 'Run code', target, user: bob });
    const callback = await h.fake.waitForRequest(
      (r) => r.method === 'POST' && r.path === `/interactions/${interaction.id}/${interaction.token}/callback`,
    );
    // Deferred within 3 s, ephemerally (flags 64): only bob sees the acknowledgement.
    expect(callback.json).toMatchObject({ type: 5, data: { flags: 64 } });
    const thread = await h.fake.waitForRequest(
      (r) => r.method === 'POST' && r.path === `/channels/${h.fake.textChannelId}/messages/${target.id}/threads`,
    );
    expect(String(thread.json.name)).toMatch(/^Run: /);
    const threadId = String(target.id); // the fake names a message's thread after it, as Discord does
    await h.fake.waitForRequest(
      (r) =>
        r.method === 'POST' &&
        r.path === `/channels/${threadId}/messages` &&
        String(r.json?.content).includes('ran for bob'),
    );
    const inbound = h.handler.received[0]!;
    expect(inbound.user).toMatchObject({ id: bob.id, name: 'bob' });
    expect(inbound.command).toEqual({ name: 'runMessage', text: `Here is the sum:\n${CODE}` });
    expect(inbound.source).toEqual({ messageId: target.id, authorId: h.fake.human.id });
    expect(inbound.thread).toEqual({
      platform: 'discord',
      workspace: h.fake.guildId,
      channel: h.fake.textChannelId,
      thread: threadId,
    });
    const told = await h.fake.waitForRequest(
      (r) => r.method === 'PATCH' && r.path.endsWith(`/${interaction.token}/messages/@original`),
    );
    expect(told.json.content).toBe(`Running that message's code in <#${threadId}>.`);
  });

  it('a channel the bot cannot see: bob is told what permission it lacks, and nothing runs', async () => {
    const target = payloads.message({
      channelId: h.fake.hiddenChannelId,
      guildId: h.fake.guildId,
      author: h.fake.human,
      content: CODE,
    });
    const interaction = h.fake.messageCommand({ name: 'Run code', target, user: bob });
    const told = await h.fake.waitForRequest(
      (r) => r.method === 'PATCH' && r.path.endsWith(`/${interaction.token}/messages/@original`),
    );
    expect(String(told.json.content)).toContain('I cannot read this channel or start threads in it');
    expect(String(told.json.content)).toContain('View Channel');
    expect(h.handler.received).toHaveLength(0);
  });

  it('a message inside a thread runs in that thread; no new thread is started', async () => {
    const threadId = payloads.snowflake();
    h.fake.channels.set(
      threadId,
      payloads.thread({
        id: threadId,
        guildId: h.fake.guildId,
        parentId: h.fake.textChannelId,
        name: 't',
        ownerId: h.fake.human.id,
      }),
    );
    h.fake.dispatch('THREAD_CREATE', h.fake.channels.get(threadId));
    await new Promise((r) => setTimeout(r, 100));
    const target = adaPosts(CODE, threadId);
    h.fake.messageCommand({ name: 'Run code', target, user: bob });
    await h.fake.waitForRequest(
      (r) =>
        r.method === 'POST' &&
        r.path === `/channels/${threadId}/messages` &&
        String(r.json?.content).includes('ran for'),
    );
    expect(h.fake.requests.filter((r) => r.path.endsWith('/threads'))).toHaveLength(0);
    expect(h.handler.received[0]!.thread).toMatchObject({ channel: h.fake.textChannelId, thread: threadId });
  });

  it('a typed "run" mentioning the bot, sent as a reply, runs the replied-to message for its sender', async () => {
    const target = adaPosts(CODE);
    h.fake.userMessage({
      channelId: h.fake.textChannelId,
      content: `<@${h.fake.bot.id}> run`,
      mentionBot: true,
      author: bob,
      replyTo: String(target.id),
    });
    await h.fake.waitForRequest((r) => r.method === 'POST' && r.path.endsWith('/threads'));
    await new Promise((r) => setTimeout(r, 300));
    const inbound = h.handler.received[0]!;
    expect(inbound.user.id).toBe(bob.id);
    expect(inbound.command).toEqual({ name: 'runMessage', text: CODE });
    expect(inbound.source).toEqual({ messageId: target.id, authorId: h.fake.human.id });
  });
});
