/**
 * The access allowlists in the product as shipped: one `threadlab start` child process with
 * THREADLAB_ACCESS_PLACES naming one Discord channel, against the fake Discord and the real Docker engine.
 * A mention in another channel gets the private notice (a DM) and starts nothing: no thread, no model call,
 * no sandbox session; the same mention in the allowed channel is answered from a run in the sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isThreadContainer } from '../roles/containers.js';
import { ShippedBot } from './shipped-bot.js';

const bot = new ShippedBot({ discord: true });
const HELP = 'Ask in #data-help to be added.';
const CODE = '```python\nprint(6 * 7)\n```';

beforeAll(async () => {
  await bot.startFakes();
  await bot.spawn({ THREADLAB_ACCESS_PLACES: `discord:${bot.discord.textChannelId}`, THREADLAB_ACCESS_HELP: HELP });
  await bot.process.ready(120_000);
  await bot.discord.gateway.whenIdentified();
}, 180_000);

afterAll(async () => {
  await bot.cleanup();
}, 60_000);

describe('access allowlists through threadlab start (Discord)', () => {
  const fake = () => bot.discord;
  const mention = (channelId: string) =>
    fake().userMessage({ channelId, content: `<@${fake().bot.id}> ${CODE}`, mentionBot: true });
  const threadsCreated = () => fake().requests.filter((r) => r.method === 'POST' && r.path.endsWith('/threads'));
  const sessions = async () => (await bot.containers()).filter(isThreadContainer);

  it('a channel not on the list: a DM with how to get access, and nothing runs', async () => {
    mention(fake().otherTextChannelId);
    const dm = await fake().waitForRequest(
      (r) => r.method === 'POST' && r.path === `/channels/${fake().dmChannelId}/messages`,
      30_000,
    );
    expect(String(dm.json.content)).toContain('Threadlab is not enabled in this channel');
    expect(String(dm.json.content)).toContain(HELP);
    await new Promise((r) => setTimeout(r, 1000));
    expect(threadsCreated()).toHaveLength(0);
    expect(
      fake().requests.filter(
        (r) => r.method === 'POST' && r.path === `/channels/${fake().otherTextChannelId}/messages`,
      ),
    ).toHaveLength(0);
    expect(bot.llm.requests).toHaveLength(0);
    expect(await sessions()).toHaveLength(0);
  }, 60_000);

  it('the allowed channel: a thread, the code run in the sandbox, the answer', async () => {
    mention(fake().textChannelId);
    const thread = await fake().waitForRequest((r) => r.method === 'POST' && r.path.endsWith('/threads'), 30_000);
    const threadId = String(thread.path.split('/')[4]);
    await fake().waitForRequest(
      (r) =>
        r.method === 'POST' && r.path === `/channels/${threadId}/messages` && String(r.json?.content).includes('42'),
      90_000,
    );
    expect(await sessions()).not.toHaveLength(0);
    expect(fake().requests.filter((r) => r.path === `/channels/${fake().dmChannelId}/messages`)).toHaveLength(1);
  }, 120_000);
});
