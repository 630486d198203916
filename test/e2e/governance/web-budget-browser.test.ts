/**
 * A daily token budget as a person meets it in the web chat page (Chromium) of the shipped process
 * (`threadlab start`, the fake OpenAI-compatible model's reported usage): the notice at 80 %, `/usage` with
 * what is left, and a question past the budget refused in the page with the time it resets, the model not asked.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeReply } from '../../fakes/fake-openai-server.js';
import { nextUtcMidnightDay, withinOneUtcDay } from '../../support/utc-day.js';
import { ShippedBot } from '../shipped/shipped-bot.js';
import {
  botMessage as botMessageIn,
  launchChromium,
  openNewThread,
  screenshot,
  sendMessage,
  watchPageErrors,
} from '../web/browser.js';

const bot = new ShippedBot({ web: true });
let browser: Browser;
let page: Page;
let errors: string[];

const answer = (content: string, prompt: number, completion: number): FakeReply => ({
  kind: 'message',
  content,
  usage: { prompt_tokens: prompt, completion_tokens: completion },
});

beforeAll(async () => {
  await withinOneUtcDay(3 * 60_000);
  await bot.start({ THREADLAB_BUDGET_USER_DAILY_TOKENS: '100' });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  errors = watchPageErrors(page);
  await openNewThread(page, bot.webUrl);
}, 360_000);

afterAll(async () => {
  await browser?.close();
  await bot.cleanup();
}, 60_000);

const send = (text: string) => sendMessage(page, text);
const botMessage = (text: string | RegExp) => botMessageIn(page, text);

describe('a daily token budget in the web chat page (threadlab start, Chromium)', () => {
  it('warns at 80 %, shows what is left with /usage, and refuses past it with the reset time', async () => {
    bot.llm.push(answer('First answer.', 50, 35));
    await send('a first question');
    await botMessage('First answer.').waitFor({ timeout: 60_000 });
    await page
      .getByText(/You have used 85 % of your daily model token budget \(85 tokens of 100 tokens\)/)
      .first()
      .waitFor({ timeout: 10_000 });

    await send('/usage');
    await botMessage('15 tokens left').waitFor({ timeout: 30_000 });
    expect(await botMessage('15 tokens left').textContent()).toContain(
      'You, model tokens: 85 tokens of 100 tokens used (85 %), 15 tokens left',
    );

    bot.llm.push(answer('Second answer.', 10, 10));
    await send('a second question');
    await botMessage('Second answer.').waitFor({ timeout: 60_000 });

    const asked = bot.llm.requests.length;
    bot.llm.push(answer('This must not be shown.', 1, 1));
    await send('a third question');
    const refusal = botMessage('so this message was not run');
    await refusal.waitFor({ timeout: 30_000 });
    await screenshot(page, 'budget-refused');
    expect(await refusal.textContent()).toMatch(
      new RegExp(
        `You have used your daily model token budget \\(105 tokens of 100 tokens\\), so this message was not run\\. ` +
          `It resets at 00:00 UTC \\(${nextUtcMidnightDay()}\\), in \\d`,
      ),
    );
    expect(bot.llm.requests).toHaveLength(asked);
    expect(await botMessage('This must not be shown').count()).toBe(0);

    await send('/usage');
    await botMessage('0 tokens left').waitFor({ timeout: 30_000 });
    expect(await botMessage('0 tokens left').textContent()).toContain('105 tokens of 100 tokens used (100 %)');
    expect(errors).toEqual([]);
  }, 180_000);
});
