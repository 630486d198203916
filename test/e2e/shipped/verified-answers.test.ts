/**
 * Verified answers where people read (issue 27): one `threadlab start` child process with Slack, Discord and
 * the web chat, the product's default THREADLAB_VERIFY_FIGURES=ask, a scripted model and the real sandbox.
 * Each surface shows all four cases: figures found in run output, an invented figure corrected after one
 * verification round, a model that insists, and a turn with no round left; the web chat (in Chromium) also
 * marks each figure in the text, Slack and Discord say it in the answer's footer.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appMention, BOT_USER_ID, eventCallback } from '../../fakes/fake-slack/index.js';
import { launchChromium, openNewThread, screenshot, watchPageErrors } from '../web/browser.js';
import {
  expectRounds,
  scriptCorrected,
  scriptFound,
  scriptInsisting,
  scriptSpent,
  type FigureTurn,
} from './figure-scenarios.js';
import { ShippedBot } from './shipped-bot.js';
import { isLiveStatus } from '../../fakes/fake-discord/index.js';

const bot = new ShippedBot({ slack: true, discord: true, web: true });
/** Characters the page uses to bracket figures while rendering: none may be left in what it shows. */
const BRACKETS = /[\uE000-\uE1FF]/;

beforeAll(async () => {
  // Three rounds: a run and an answer leave one for the verification round; two runs and an answer leave none.
  await bot.start({ THREADLAB_LLM_MAX_ROUNDS: '3' });
}, 180_000);

afterAll(async () => {
  await bot.cleanup();
}, 60_000);

describe('the web chat page marks each figure and shows the line (Chromium)', () => {
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    errors = watchPageErrors(page);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  /** Sends a question in a new thread and returns the shown answer once it has its figures line. */
  const ask = async (turn: FigureTurn) => {
    await openNewThread(page, bot.webUrl);
    await page.fill('#text', 'how did revenue do?');
    await page.keyboard.press('Enter');
    const reply = page.locator('article.msg.bot', { hasText: turn.answer.split(':')[0]! });
    await reply.locator('.figures-line').waitFor({ timeout: 60_000 });
    return reply;
  };
  const marks = (reply: ReturnType<Page['locator']>) =>
    reply
      .locator('.text mark.figure')
      .evaluateAll((nodes) =>
        nodes.map((n) => ({ text: n.textContent, class: n.className, title: n.getAttribute('title') })),
      );

  it('(a) figures found in run output: each marked with its run and line, and the ✓ line', async () => {
    const turn = scriptFound(bot.llm, 'web found');
    const reply = await ask(turn);
    expect(await reply.locator('.figures-line').textContent()).toBe(turn.line);
    expect(await reply.locator('.figures-line').getAttribute('class')).toBe('figures-line found');
    expect(await marks(reply)).toEqual([
      { text: '54', class: 'figure found', title: 'run 1, line 1' },
      { text: '13.5', class: 'figure found', title: 'run 1, line 2' },
    ]);
    // Markdown still renders around a mark (the bold total), and the text reads as the model wrote it.
    expect(await reply.locator('.text strong mark.figure').textContent()).toBe('54');
    const shown = (await reply.locator('.text').textContent())!;
    expect(shown.trim()).toBe(turn.answer.replace(/\*\*/g, ''));
    expect(BRACKETS.test(await reply.innerHTML())).toBe(false);
    expectRounds(bot.llm, turn, 0);
    await screenshot(page, 'figures-found');
  });

  it('(b) an invented figure: one verification round, and the corrected answer is shown with ✓', async () => {
    const turn = scriptCorrected(bot.llm, 'web corrected');
    const reply = await ask(turn);
    expect(await reply.locator('.figures-line').textContent()).toBe(turn.line);
    expect(await reply.locator('.text').textContent()).toContain(turn.answer);
    expect(await page.locator('article.msg.bot', { hasText: '12.4' }).count()).toBe(0);
    expect(await marks(reply)).toEqual([{ text: '54', class: 'figure found', title: 'run 1, line 1' }]);
    expectRounds(bot.llm, turn, 1);
  });

  it('(c) a model that insists: the answer is shown with the figure marked missing and the ⚠ line', async () => {
    const turn = scriptInsisting(bot.llm, 'web insists');
    const reply = await ask(turn);
    expect(await reply.locator('.figures-line').textContent()).toBe(turn.line);
    expect(await reply.locator('.figures-line').getAttribute('class')).toBe('figures-line missing');
    expect(await marks(reply)).toEqual([
      { text: '54', class: 'figure found', title: 'run 1, line 1' },
      { text: '12.4 %', class: 'figure missing', title: 'not found in any output' },
    ]);
    // The warning stands out: the missing mark has a background, the found one none.
    const background = (selector: string) =>
      reply.locator(selector).evaluate((n) => getComputedStyle(n).backgroundColor);
    expect(await background('mark.figure.missing')).not.toBe('rgba(0, 0, 0, 0)');
    expect(await background('mark.figure.found')).toBe('rgba(0, 0, 0, 0)');
    expectRounds(bot.llm, turn, 1);
    await screenshot(page, 'figures-missing');
  });

  it('(d) no round left: the answer is shown marked, without a verification round', async () => {
    const turn = scriptSpent(bot.llm, 'web spent');
    const reply = await ask(turn);
    expect(await reply.locator('.figures-line').textContent()).toBe(turn.line);
    expect((await marks(reply)).map((m) => [m.text, m.title])).toEqual([
      ['54', 'run 1, line 1'],
      ['12.4 %', 'not found in any output'],
    ]);
    expectRounds(bot.llm, turn, 0);
    expect(errors).toEqual([]);
  });
});

describe('Slack shows the line in a context block under the answer', () => {
  const mention = async (text: string): Promise<string> => {
    const event = appMention({ text: `<@${BOT_USER_ID}> ${text}` });
    await bot.slack.socket.send('events_api', eventCallback(event));
    return event.ts as string;
  };
  /** The answer's message once posted, and the texts of its context blocks. */
  const answerIn = async (ts: string, turn: FigureTurn) => {
    const tag = turn.answer.split(':')[0]!;
    const message = await bot.slack.waitFor(
      () => bot.slack.state.messages.find((m) => m.thread_ts === ts && !m.deleted && m.text.includes(tag)),
      { what: `the answer "${tag}" in thread ${ts}`, timeoutMs: 60_000 },
    );
    const contexts = (message.blocks as { type: string; elements?: { text?: string }[] }[])
      .filter((b) => b.type === 'context')
      .map((b) => b.elements?.[0]?.text ?? '');
    return { message, contexts };
  };

  it('(a) figures found in run output: the ✓ line', async () => {
    const turn = scriptFound(bot.llm, 'slack found');
    const { message, contexts } = await answerIn(await mention('how did revenue do?'), turn);
    expect(message.text).toContain('revenue totals *54*, a mean of 13.5 per month.');
    // Just above the timings footer.
    expect(contexts.slice(-2)[0]).toBe(turn.line);
    expect(contexts.at(-1)).toContain(':stopwatch:');
    expectRounds(bot.llm, turn, 0);
  });

  it('(b) an invented figure: one verification round, and the corrected answer with the ✓ line', async () => {
    const turn = scriptCorrected(bot.llm, 'slack corrected');
    const ts = await mention('how did revenue do?');
    const { message, contexts } = await answerIn(ts, turn);
    expect(message.text).toContain(turn.answer);
    expect(contexts.slice(-2)[0]).toBe(turn.line);
    // The first, invented answer was never posted.
    expect(bot.slack.state.messages.filter((m) => m.thread_ts === ts && m.text.includes('12.4'))).toEqual([]);
    expectRounds(bot.llm, turn, 1);
  });

  it('(c) a model that insists: the ⚠ line names the figure', async () => {
    const turn = scriptInsisting(bot.llm, 'slack insists');
    const { message, contexts } = await answerIn(await mention('how did revenue do?'), turn);
    expect(message.text).toContain(turn.answer);
    expect(contexts.slice(-2)[0]).toBe(turn.line);
    expectRounds(bot.llm, turn, 1);
  });

  it('(d) no round left: the ⚠ line without a verification round', async () => {
    const turn = scriptSpent(bot.llm, 'slack spent');
    const { contexts } = await answerIn(await mention('how did revenue do?'), turn);
    expect(contexts.slice(-2)[0]).toBe(turn.line);
    expectRounds(bot.llm, turn, 0);
  });
});

describe('Discord shows the line in the footer of the answer', () => {
  const mention = (content: string): string =>
    String(
      bot.discord.userMessage({
        channelId: bot.discord.textChannelId,
        content: `<@${bot.discord.bot.id}> ${content}`,
        mentionBot: true,
      }).id,
    );
  const answerIn = async (threadId: string, turn: FigureTurn): Promise<string> => {
    const tag = turn.answer.split(':')[0]!;
    const posted = await bot.discord.waitForRequest(
      (r) =>
        r.method === 'POST' &&
        r.path === `/channels/${threadId}/messages` &&
        !isLiveStatus(r.json) &&
        String(r.json?.content).includes(tag),
      60_000,
    );
    return String(posted.json?.content);
  };

  it('(a) figures found in run output: the ✓ line as subtext above the timings', async () => {
    const turn = scriptFound(bot.llm, 'discord found');
    const content = await answerIn(mention('how did revenue do?'), turn);
    const lines = content.split('\n');
    expect(content.startsWith(turn.answer)).toBe(true);
    expect(lines.at(-2)).toBe(`-# ${turn.line}`);
    expect(lines.at(-1)).toMatch(/^-# ⏱ /);
    expectRounds(bot.llm, turn, 0);
  });

  it('(b) an invented figure: one verification round, and the corrected answer with the ✓ line', async () => {
    const turn = scriptCorrected(bot.llm, 'discord corrected');
    const content = await answerIn(mention('how did revenue do?'), turn);
    expect(content.startsWith(turn.answer)).toBe(true);
    expect(content.split('\n').at(-2)).toBe(`-# ${turn.line}`);
    expectRounds(bot.llm, turn, 1);
  });

  it('(c) a model that insists: the ⚠ line names the figure', async () => {
    const turn = scriptInsisting(bot.llm, 'discord insists');
    const content = await answerIn(mention('how did revenue do?'), turn);
    expect(content.startsWith(turn.answer)).toBe(true);
    expect(content.split('\n').at(-2)).toBe(`-# ${turn.line}`);
    expectRounds(bot.llm, turn, 1);
  });

  it('(d) no round left: the ⚠ line without a verification round', async () => {
    const turn = scriptSpent(bot.llm, 'discord spent');
    const content = await answerIn(mention('how did revenue do?'), turn);
    expect(content.split('\n').at(-2)).toBe(`-# ${turn.line}`);
    expectRounds(bot.llm, turn, 0);
  });
});
