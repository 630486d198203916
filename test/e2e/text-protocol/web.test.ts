/**
 * The text protocol in the web chat (THREADLAB_LLM_TOOLS=text, streamed replies): Chromium drives the page of
 * the real web chat adapter on the real core (Bot) and Docker sandbox; the real `openai` client talks to a
 * scripted model that only ever writes fenced code blocks.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAiServer, fakeSay } from '../../fakes/fake-openai-server.js';
import { launchChromium, openNewThread, screenshot, watchPageErrors } from '../web/browser.js';
import { startWebBot, type WebBotRig } from '../web/web-bot-rig.js';
import { expectCleanWebReply, webFixAfterErrorTurn } from './surfaces.js';
import {
  AFTER_STOP,
  AFTER_STOP_REPLIES,
  expectAfterStopRequests,
  expectFixAfterErrorRequests,
  FIX_AFTER_ERROR_REPLIES,
  SLEEPER,
  SLEEPER_STARTED,
  scriptedTurn,
  STOPPED,
  TEXT_PROTOCOL_ENV,
} from './scenario.js';

describe('the text protocol in the web chat (THREADLAB_LLM_TOOLS=text)', () => {
  let rig: WebBotRig | undefined;
  let llm: FakeOpenAiServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    llm = new FakeOpenAiServer();
    await llm.start();
    rig = await startWebBot('text-protocol', {
      OPENAI_API_KEY: 'sk-e2e-web-text-protocol-0000',
      OPENAI_BASE_URL: llm.baseUrl,
      ...TEXT_PROTOCOL_ENV,
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    errors = watchPageErrors(page);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await llm?.stop();
    // whatever the sandbox left behind (it should be nothing) goes too
    expect(await rig?.stop()).toEqual([]);
  });

  const send = async (text: string): Promise<void> => {
    await page.fill('#text', text);
    await page.keyboard.press('Enter');
  };

  it('a failing block, its traceback, the fix and a chart: the page shows the clean answer and the chart', async () => {
    llm.push(...FIX_AFTER_ERROR_REPLIES.map(fakeSay));
    const web = { url: rig!.adapter.url, messagesOf: rig!.messages };
    expectFixAfterErrorRequests(await webFixAfterErrorTurn(page, web, llm));
    await screenshot(page, 'text-protocol-answer');
  });

  it('Stop during a long fenced block ends the turn as stopped and interrupts the run; the thread goes on', async () => {
    const before = llm.requests.length;
    llm.push(fakeSay(SLEEPER));
    await openNewThread(page, rig!.adapter.url);
    await send('wait for the data, then tell me');
    await page
      .locator('article.msg.progress .live-output', { hasText: SLEEPER_STARTED })
      .waitFor({ timeout: 60_000 })
      .catch(async (err: Error) => {
        throw new Error(`${err.message}\nThe thread showed:\n${await page.locator('#messages').innerText()}`);
      });
    // The streamed reply in the live view stops where the block starts: the block shows as the run above it.
    const streamed = (await page.locator('article.msg.progress .stream-text').textContent()) ?? '';
    expect(streamed.trim()).toBe('I will wait for the data first.');
    const clickedAt = Date.now();
    await page.click('#stop');
    await page.locator('#status', { hasText: 'Stopped' }).waitFor({ timeout: 15_000 });
    const stoppedMs = Date.now() - clickedAt;
    expect(stoppedMs).toBeLessThan(15_000); // not the run limit, let alone the 120 s sleep
    expect(await page.locator('#stop').isDisabled()).toBe(true);
    expect(await page.locator('article.msg.progress').count()).toBe(0);
    const notice = page.locator('article.msg.bot', { hasText: STOPPED });
    await notice.waitFor({ timeout: 10_000 });
    expect(await notice.locator('.text').textContent()).toContain('timeout: KeyboardInterrupt');
    await expectCleanWebReply(page, rig!.messages, STOPPED);
    expect(llm.requests.length - before).toBe(1); // the model was not asked again
    await screenshot(page, 'text-protocol-stopped');
    process.stderr.write(`[text-protocol web] Stop → stopped status in ${stoppedMs} ms\n`);

    // The interpreter survived the interrupt, and the block never got past its sleep.
    const after = await scriptedTurn(llm, AFTER_STOP_REPLIES, async () => {
      await send('is phase still set?');
      await page.locator('article.msg.bot', { hasText: AFTER_STOP.answer }).waitFor({ timeout: 60_000 });
    });
    expectAfterStopRequests(after);
    expect(errors).toEqual([]);
  });
});
