import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebChatAdapter } from '../../../adapters/web/index.js';
import { loadConfig } from '../../../src/config/index.js';
import type { Bot } from '../../../src/core/bot.js';
import { createLogger } from '../../../src/logger.js';
import { buildBot, createSandbox } from '../../../app/index.js';
import { launchChromium, watchPageErrors, openNewThread } from './browser.js';
import { sandboxRuntimeEnv } from '../../support/sandbox-runtime.js';

// The Edit action in the real browser, on the real core (Bot), queue and Docker sandbox (direct code runs).
const logger = createLogger({ level: process.env.THREADLAB_TEST_LOG ?? 'silent' });
const code = (body: string) => `\`\`\`python\n${body}\n\`\`\``;

describe('web chat: Edit re-runs a message', () => {
  let dataDir: string;
  let adapter: WebChatAdapter;
  let bot: Bot;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'threadlab-web-edit-'));
    const config = loadConfig({
      THREADLAB_DATA_DIR: dataDir,
      THREADLAB_SANDBOX_IMAGE: process.env.THREADLAB_TEST_SANDBOX_IMAGE,
      THREADLAB_SANDBOX_POOL_SIZE: '0',
      THREADLAB_WEB_PORT: '0',
      ...sandboxRuntimeEnv(),
      // The first test submits 4 jobs (2 messages, 2 edits); the second hits the limit with an edit.
      THREADLAB_USER_MAX_PER_MINUTE: '5',
    });
    adapter = new WebChatAdapter({ port: 0, dataDir, logger, maxTextBytes: 1000 });
    const sandbox = await createSandbox(config, logger, { instanceId: `web-edit-${randomBytes(4).toString('hex')}` });
    bot = await buildBot(config, logger, { overrides: { sandbox, adapters: [adapter] } });
    await bot.start();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    errors = watchPageErrors(page);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await bot?.stop();
    await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }); // a scripted reply may still be landing
  });

  const send = async (text: string) => {
    await page.fill('#text', text);
    await page.click('#send');
  };
  const answer = (text: string) => page.locator('article.msg.bot:not(.progress)', { hasText: text });
  const editMessage = async (index: number, text: string) => {
    const message = page.locator('article.msg.user').nth(index);
    await message.locator('button.edit-action').click();
    await message.locator('textarea.edit-text').fill(text);
    await message.locator('button.edit-save').click();
  };

  it('an edit of the latest message replaces its answer; of an earlier one, answers anew naming it', async () => {
    await openNewThread(page, adapter.url);
    const threadId = page.url().split('/').pop()!;
    await send(code('print(6 * 7 * 1001)'));
    await answer('42042').waitFor({ timeout: 90_000 });
    const firstId = await page.locator('article.msg.bot:not(.progress)').first().getAttribute('data-id');

    await editMessage(0, code('print(6 * 8 * 1001)'));
    await answer('48048').waitFor({ timeout: 60_000 });
    expect(await page.locator('article.msg.bot:not(.progress)').count()).toBe(1);
    expect(await page.locator('article.msg.bot:not(.progress)').first().getAttribute('data-id')).toBe(firstId);
    expect(await page.locator('article.msg.bot:not(.progress)').first().textContent()).toContain(
      'Re-ran after your edit',
    );
    expect(await page.locator('article.msg.user').first().textContent()).toContain('6 * 8');

    await send(code('print(1 + 1)'));
    await expect.poll(() => page.locator('article.msg.bot:not(.progress)').count(), { timeout: 60_000 }).toBe(2);
    await editMessage(0, code('print(6 * 9 * 1001)'));
    await answer('54054').waitFor({ timeout: 60_000 });
    expect(await answer('54054').textContent()).toContain('Re-ran your edited message');
    expect(await page.locator('article.msg.bot:not(.progress)').count()).toBe(3);
    expect(await answer('48048').count()).toBe(1); // the earlier answer stands

    // A reload shows the revised history in its order: edited text, replaced answer.
    await page.reload();
    await answer('54054').waitFor();
    const texts = await page.locator('article.msg').allTextContents();
    expect(texts.findIndex((t) => t.includes('6 * 9'))).toBe(0);
    expect(texts.findIndex((t) => t.includes('Re-ran after your edit'))).toBe(1);

    // An unchanged text is not run; an over-long one is refused with why.
    const history = (await (await fetch(`${adapter.url}/api/threads/${threadId}/messages`)).json()) as {
      messages: { id: string; text: string }[];
    };
    const secondId = await userId(1);
    const followUp = history.messages.find((m) => m.id === secondId)!;
    const res = await fetch(`${adapter.url}/api/threads/${threadId}/messages/${followUp.id}/edit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: followUp.text }),
    });
    expect(await res.json()).toMatchObject({ unchanged: true });
    const tooLong = await fetch(`${adapter.url}/api/threads/${threadId}/messages/${await userId(1)}/edit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'x'.repeat(1001) }),
    });
    expect(tooLong.status).toBe(413);
    expect(await page.locator('article.msg.bot:not(.progress)').count()).toBe(3);
    expect(errors).toEqual([]);
  });

  it('an edit counts against the same per-user limit as a message: refused with 429, nothing revised', async () => {
    const base = adapter.url;
    const created = await fetch(`${base}/api/threads`, { method: 'POST', body: '{}' });
    const threadId = ((await created.json()) as { thread: { id: string } }).thread.id;
    const posted = await fetch(`${base}/api/threads/${threadId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: code('print("fifth")') }),
    });
    expect(posted.status).toBe(202);
    const { message } = (await posted.json()) as { message: { id: string; text: string } };
    const edit = await fetch(`${base}/api/threads/${threadId}/messages/${message.id}/edit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: code('print("sixth")') }),
    });
    expect(edit.status).toBe(429);
    expect(((await edit.json()) as { error: { message: string } }).error.message).toMatch(/minute|limit|slow/i);
    const history = (await (await fetch(`${base}/api/threads/${threadId}/messages`)).json()) as {
      messages: { id: string; text: string }[];
    };
    expect(history.messages.find((m) => m.id === message.id)?.text).toBe(message.text);
  });

  const userId = (index: number) => page.locator('article.msg.user').nth(index).getAttribute('data-id');
});
