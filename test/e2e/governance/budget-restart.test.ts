/**
 * Daily budgets kept in Redis by the shipped process: `threadlab start` (web chat, a private redis-server as
 * REDIS_URL, THREADLAB_BUDGET_USER_DAILY_TOKENS small) spends most of a user's tokens, is stopped with SIGTERM,
 * and a new `threadlab start` still counts them: `/usage` says what is left, and a question past the budget is
 * refused with the time it resets, the model not asked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeReply } from '../../fakes/fake-openai-server.js';
import { startPrivateRedis, type PrivateRedis } from '../../support/redis-server.js';
import { nextUtcMidnightDay, withinOneUtcDay } from '../../support/utc-day.js';
import { waitUntil } from '../roles/processes.js';
import { ShippedBot } from '../shipped/shipped-bot.js';
import { WebClientForTests, type WebMessageView } from '../shipped/web-client.js';

const bot = new ShippedBot({ web: true });
const web = new WebClientForTests(() => bot.webUrl);
let redis: PrivateRedis;
let env: Record<string, string>;

const answer = (content: string, prompt: number, completion: number): FakeReply => ({
  kind: 'message',
  content,
  usage: { prompt_tokens: prompt, completion_tokens: completion },
});

beforeAll(async () => {
  // A Redis of our own: other tests' counters for the same web user and day must not mix in.
  redis = await startPrivateRedis();
  env = { REDIS_URL: redis.url, THREADLAB_BUDGET_USER_DAILY_TOKENS: '100' };
  await withinOneUtcDay(3 * 60_000);
}, 300_000);

afterAll(async () => {
  await bot.cleanup();
  await redis?.stop();
}, 60_000);

/** Posts `text` and waits for the bot's message after it that contains `expected`. */
async function say(thread: string, text: string, expected: string): Promise<WebMessageView> {
  const before = (await web.messages(thread)).length;
  await web.post(thread, { text });
  return waitUntil(
    async () => (await web.messages(thread)).slice(before).find((m) => m.role === 'bot' && m.text.includes(expected)),
    { timeoutMs: 60_000, what: `"${expected}" in web thread ${thread}`, intervalMs: 100 },
  );
}

describe('daily budgets in Redis across a restart of threadlab start', () => {
  it('counts survive the restart, and the refusal says when the budget resets', async () => {
    await bot.start(env);
    const thread = await web.createThread();
    bot.llm.push(answer('First answer.', 50, 35));
    await say(thread, 'a first question', 'First answer.');
    expect((await say(thread, '/usage', 'tokens left')).text).toContain(
      'You, model tokens: 85 tokens of 100 tokens used (85 %), 15 tokens left',
    );

    const first = bot.process;
    first.child.kill('SIGTERM');
    expect((await first.exited).code, first.output()).toBe(0);
    await bot.spawn(env);
    await bot.process.ready(120_000);
    expect(bot.process.pid).not.toBe(first.pid);

    // The new process reads the spend from Redis, not from zero.
    expect((await say(thread, '/usage', 'tokens left')).text).toContain(
      'You, model tokens: 85 tokens of 100 tokens used (85 %), 15 tokens left',
    );
    bot.llm.push(answer('Second answer.', 10, 10));
    await say(thread, 'a second question', 'Second answer.');

    const asked = bot.llm.requests.length;
    bot.llm.push(answer('This must not be shown.', 1, 1));
    const refused = await say(thread, 'a third question', 'so this message was not run');
    const resetDay = nextUtcMidnightDay();
    expect(refused.text).toMatch(
      new RegExp(
        `You have used your daily model token budget \\(105 tokens of 100 tokens\\), so this message was not run\\. ` +
          `It resets at 00:00 UTC \\(${resetDay}\\), in (\\d+ h )?\\d+ min`,
      ),
    );
    expect(bot.llm.requests).toHaveLength(asked);
  }, 300_000);
});
