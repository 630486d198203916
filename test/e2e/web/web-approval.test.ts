import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeRunCode, fakeSay } from '../../fakes/fake-openai-server.js';
import { fetchMetrics, metricValue } from '../roles/processes.js';
import { ShippedBot } from '../shipped/shipped-bot.js';
import { launchChromium, screenshot, watchPageErrors, openNewThread } from './browser.js';

const TIMEOUT_MS = 5000;

// The shipped process (`node bin/threadlab.js start`) with THREADLAB_APPROVAL=ask, driven from Chromium; and the
// 👍/👎 under its answers, at 1280×800 and on a phone at 390×844 (screenshots in test-results/web).
describe('Approval before running in the web chat (threadlab start, real browser)', () => {
  const bot = new ShippedBot({ web: true });
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    await bot.start({
      THREADLAB_APPROVAL: 'ask',
      THREADLAB_APPROVAL_TIMEOUT_MS: String(TIMEOUT_MS),
      THREADLAB_AUDIT_LOG: auditPath(),
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    // A press that lost the race with the timeout answers 409, which the page reports in its status.
    errors = watchPageErrors(page, (text) => text.includes('409'));
    await openNewThread(page, bot.webUrl);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await bot.cleanup();
  });

  const ask = async (text: string) => {
    await page.fill('#text', text);
    await page.keyboard.press('Enter');
  };
  const toolResults = () => JSON.stringify(bot.llm.requests.at(-1)!.body.messages.filter((m) => m.role === 'tool'));
  const card = (code: string) => page.locator('article.approval', { hasText: code });
  const auditPath = () => join(bot.dataDir, 'audit-approval.jsonl');
  /** The trail's approval lines: each request leaves exactly one, written as it ends. */
  const approvalLines = () =>
    readFileSync(auditPath(), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.kind === 'approval');

  it('shows the code with Run and Skip; Run runs it and the answer follows', async () => {
    bot.llm.push(fakeRunCode('print(6 * 7)'), fakeSay('The answer is 42.'));
    await ask('compute six times seven');
    const prompt = card('print(6 * 7)');
    await prompt.waitFor({ timeout: 60_000 });
    await screenshot(page, 'web-approval-waiting');
    expect(bot.llm.requests).toHaveLength(1); // the loop waits: no run, no second model call
    await prompt.locator('button.approval-run').click();
    await page.locator('article.msg.bot', { hasText: 'The answer is 42' }).waitFor({ timeout: 60_000 });
    expect(toolResults()).toContain('42');
    await expect.poll(() => prompt.locator('.approval-outcome').textContent()).toContain('Run approved by you');
    expect(await prompt.locator('button').count()).toBe(0);
    expect(approvalLines()).toEqual([
      expect.objectContaining({
        decision: 'run',
        by: 'asker',
        approvalId: await prompt.getAttribute('data-approval-id'),
      }),
    ]);
  });

  it('Skip: the code does not run and the model is told', async () => {
    bot.llm.push(fakeRunCode('print("skip me")'), fakeSay('Fine, I did not run it.'));
    await ask('print skip me');
    const prompt = card('skip me');
    await prompt.waitFor({ timeout: 60_000 });
    await prompt.locator('button.approval-skip').click();
    await page.locator('article.msg.bot', { hasText: 'did not run it' }).waitFor({ timeout: 60_000 });
    expect(toolResults()).toContain('This code did NOT run: The user chose Skip');
    await expect.poll(() => prompt.locator('.approval-outcome').textContent()).toContain('Skipped by you');
    expect(approvalLines().map((l) => [l.decision, l.by])).toEqual([
      ['run', 'asker'],
      ['skip', 'asker'],
    ]);
  });

  it('a page opened while code waits shows it; nobody answers, so it is skipped and the model told', async () => {
    bot.llm.push(fakeRunCode('print("never")'), fakeSay('Nobody approved, so nothing ran.'));
    const started = Date.now();
    await ask('print never');
    await card('print("never")').waitFor({ timeout: 60_000 });
    await page.reload();
    const prompt = card('print("never")');
    await prompt.locator('button.approval-run').waitFor({ timeout: 10_000 });
    const approvalId = await prompt.getAttribute('data-approval-id');
    await page.locator('article.msg.bot', { hasText: 'Nobody approved, so' }).waitFor({ timeout: 60_000 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(toolResults()).toContain('Nobody approved it within 5 s');
    await expect.poll(() => prompt.locator('.approval-outcome').textContent()).toContain('No answer within 5 s');
    // The API refuses a late press (409) and a malformed one (400).
    const threadId = /#\/t\/([\w-]+)$/.exec(page.url())![1]!;
    const post = (body: unknown) =>
      fetch(`${bot.webUrl}/api/threads/${threadId}/approvals/${approvalId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post({ action: 'run' })).status).toBe(409);
    expect((await post({ action: 'rm -rf' })).status).toBe(400);
    expect(errors).toEqual([]);
    // One line per request, the late press none; the timeout's line says nobody pressed.
    const lines = approvalLines();
    expect(lines.map((l) => l.decision)).toEqual(['run', 'skip', 'timeout']);
    expect(lines[2]).toMatchObject({ by: null, approvalId, thread: `web:local:web:${threadId}`, platform: 'web' });
    expect(lines[2]!.waitedMs).toBeGreaterThanOrEqual(TIMEOUT_MS);
  });

  it('👍 under an answer shows the choice; 👎 on a phone replaces it and takes a comment; both reach the trail and /metrics', async () => {
    bot.llm.push(fakeSay('The mean of 2, 4 and 9 is 5.'));
    const desktop = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const phoneContext = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
    });
    const phone = await phoneContext.newPage();
    const pageErrors = [watchPageErrors(desktop), watchPageErrors(phone)];
    try {
      const threadId = await openNewThread(desktop, bot.webUrl);
      await desktop.fill('#text', 'what is the mean of 2, 4 and 9?');
      await desktop.keyboard.press('Enter');
      const answerOn = (p: Page) => p.locator('article.msg.bot', { hasText: 'The mean of 2, 4 and 9 is 5.' });
      const button = (p: Page, verdict: string) => answerOn(p).locator(`.feedback-button[data-verdict="${verdict}"]`);
      await answerOn(desktop).waitFor({ timeout: 60_000 });
      await button(desktop, 'good').click();
      await expect.poll(() => button(desktop, 'good').getAttribute('aria-pressed')).toBe('true');
      expect(await button(desktop, 'bad').getAttribute('aria-pressed')).toBe('false');
      expect(await answerOn(desktop).locator('.feedback-status').textContent()).toBe('Thanks.');
      await expect.poll(() => answerOn(desktop).locator('.feedback-comment').isVisible()).toBe(true);
      await screenshot(desktop, 'web-feedback-1280x800');

      await phone.goto(`${bot.webUrl}/#/t/${threadId}`);
      await answerOn(phone).waitFor({ timeout: 30_000 });
      await button(phone, 'bad').tap();
      await expect.poll(() => button(phone, 'bad').getAttribute('aria-pressed')).toBe('true');
      const field = answerOn(phone).locator('.feedback-comment');
      await field.fill('It should say the numbers were 2, 4 and 9.');
      await field.press('Enter');
      await expect.poll(() => answerOn(phone).locator('.feedback-status').textContent()).toBe('Thanks, comment sent.');
      // The controls fit the phone: every part inside the 390 px screen, the buttons big enough to tap.
      for (const part of [button(phone, 'good'), button(phone, 'bad'), answerOn(phone).locator('.feedback-status')]) {
        const box = (await part.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(390);
      }
      expect((await button(phone, 'bad').boundingBox())!.height).toBeGreaterThanOrEqual(36);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await answerOn(phone).scrollIntoViewIfNeeded();
      await screenshot(phone, 'web-feedback-390x844');

      const lines = readFileSync(auditPath(), 'utf8')
        .split('\n')
        .filter((l) => l.includes('"kind":"feedback"'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.map((l) => [l.thread, l.verdict, l.previous, l.model, l.comment])).toEqual([
        [`web:local:web:${threadId}`, 'good', null, 'fake-gpt', null],
        [`web:local:web:${threadId}`, 'bad', 'good', 'fake-gpt', null],
        [`web:local:web:${threadId}`, 'bad', 'bad', 'fake-gpt', 'It should say the numbers were 2, 4 and 9.'],
      ]);
      const metrics = await fetchMetrics(bot.process);
      expect(metricValue(metrics, 'threadlab_feedback_total', { verdict: 'good', model: 'fake-gpt' })).toBe(1);
      expect(metricValue(metrics, 'threadlab_feedback_total', { verdict: 'bad', model: 'fake-gpt' })).toBe(1);
      expect(pageErrors).toEqual([[], []]);
    } finally {
      await desktop.close();
      await phoneContext.close();
    }
  });
});
