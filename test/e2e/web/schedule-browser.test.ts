/**
 * A scheduled report as a person sees it in the web chat page (Chromium) of the shipped process
 * (`threadlab start`): `/schedule every 2s rerun` typed in the page, and the scheduled runs appearing in the
 * thread by themselves, live, with no message sent; `/schedule cancel 1` stops them.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShippedBot } from '../shipped/shipped-bot.js';
import {
  botMessage as botMessageIn,
  launchChromium,
  openNewThread,
  screenshot,
  sendMessage,
  watchPageErrors,
} from './browser.js';

const bot = new ShippedBot({ web: true });
let browser: Browser;
let page: Page;
let errors: string[];

beforeAll(async () => {
  await bot.start({ THREADLAB_SCHEDULE_MIN_INTERVAL: '1s' });
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

describe('a scheduled report in the web chat page (threadlab start, Chromium)', () => {
  it('shows the scheduled runs as they come, without a message sent, until cancelled', async () => {
    await send('```python\nimport time\nprint("tick", time.time_ns())\n```');
    await botMessage(/tick \d+/)
      .first()
      .waitFor({ timeout: 90_000 });
    await send('/schedule every 2s rerun');
    await botMessage('Scheduled #1: every 2s').waitFor({ timeout: 30_000 });
    await botMessage('Scheduled run (every 2s)').nth(1).waitFor({ timeout: 30_000 });
    await screenshot(page, 'schedule-runs');
    const runs = await botMessage('Scheduled run (every 2s)').allTextContents();
    expect(runs[0]).toMatch(/tick \d+/);
    expect(runs[0]).not.toBe(runs[1]);
    await send('/schedule cancel 1');
    await botMessage('Cancelled schedule #1').waitFor({ timeout: 30_000 });
    const count = await botMessage('Scheduled run').count();
    await page.waitForTimeout(5000);
    expect(await botMessage('Scheduled run').count()).toBeLessThanOrEqual(count + 1);
    expect(errors).toEqual([]);
  });
});
