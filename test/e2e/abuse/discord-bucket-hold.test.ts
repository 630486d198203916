/**
 * Issue 26, item 9: a 429 holds its bucket for every writer of the bot. The status message and the
 * answer both POST to the thread's messages (one Discord bucket); when the status write got 429 with
 * Retry-After, the answer must not be sent into the same bucket before its reset (a second 429 counts
 * toward Discord's invalid-request ban), even when that 429 was the route's first response.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { textReply } from '../../../src/domain/reply.js';
import { startHarness, type Harness } from '../discord/harness.js';
import { scriptMention } from '../shipped/scenarios.js';
import { ShippedBot } from '../shipped/shipped-bot.js';

const RETRY_AFTER_S = 1.5;

describe('Discord rate-limit buckets shared by every writer', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
  });

  it('the answer waits for the reset of the 429 its status write got, and no write gets a second 429', async () => {
    const text = 'answer into a rate-limited bucket';
    h = await startHarness(async () => {
      await h!.fake.waitForRequest((r) => r.status === 429);
      return textReply(text);
    });
    const { fake } = h;
    fake.rateLimit({ method: 'POST', path: /^\/channels\/\d+\/messages$/, retryAfterS: RETRY_AFTER_S });
    const question = fake.userMessage({
      channelId: fake.textChannelId,
      content: `<@${fake.bot.id}> go`,
      mentionBot: true,
    });
    const thread = String(question.id);
    const answer = await fake.waitForRequest(
      (r) => r.method === 'POST' && r.path === `/channels/${thread}/messages` && r.json?.content === text,
    );
    const refused = fake.requests.filter((r) => r.status === 429);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.path).toBe(`/channels/${thread}/messages`);
    expect(answer.status).toBe(200);
    expect(answer.atMs - refused[0]!.atMs).toBeGreaterThanOrEqual(RETRY_AFTER_S * 1000);
    // Nothing reached that bucket while it was held.
    const intoBucket = fake.requests.filter(
      (r) => r.method === 'POST' && r.path === `/channels/${thread}/messages` && r.atMs > refused[0]!.atMs,
    );
    expect(intoBucket.every((r) => r.atMs - refused[0]!.atMs >= RETRY_AFTER_S * 1000)).toBe(true);
  }, 20_000);
});

describe('Discord rate-limit buckets through threadlab start', () => {
  let bot: ShippedBot | undefined;
  afterEach(async () => {
    await bot?.cleanup();
    bot = undefined;
  }, 60_000);

  it('the status 429 holds the answer of the model and sandbox until the reset; nothing meets a second 429', async () => {
    const holdS = 5;
    bot = new ShippedBot({ discord: true });
    await bot.start();
    const { discord } = bot;
    discord.rateLimit({ method: 'POST', path: /^\/channels\/\d+\/messages$/, retryAfterS: holdS });
    const answer = scriptMention(bot.llm, 'discord');
    const question = discord.userMessage({
      channelId: discord.textChannelId,
      content: `<@${discord.bot.id}> what is 6 times 7?`,
      mentionBot: true,
    });
    const thread = String(question.id);
    const reply = await discord.waitForRequest(
      (r) => r.path === `/channels/${thread}/messages` && String(r.json?.content).includes(answer),
      60_000,
    );
    const refused = discord.requests.filter((r) => r.status === 429);
    expect(refused.map((r) => `${r.method} ${r.path}`)).toEqual([`POST /channels/${thread}/messages`]);
    expect(reply.status).toBe(200);
    expect(reply.atMs - refused[0]!.atMs).toBeGreaterThanOrEqual(holdS * 1000);
  }, 180_000);
});
