import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebChatAdapter } from '../../../adapters/web/index.js';
import { threadKey } from '../../../src/domain/thread-key.js';
import { createLogger } from '../../../src/logger.js';
import { decodedSize, launchChromium, screenshot, watchPageErrors, openNewThread } from './browser.js';
import { ScriptedWebHandler } from './scripted-web-handler.js';

// The web adapter alone, in a real browser, against a scripted core (no Docker, no LLM).
const logger = createLogger({ level: 'silent' });
const CSV = 'month,sales\nJan,10\nFeb,14\nMar,9\n';

describe('web chat adapter in a browser', () => {
  let dataDir: string;
  let adapter: WebChatAdapter;
  let handler: ScriptedWebHandler;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  const startAdapter = async () => {
    adapter = new WebChatAdapter({ port: 0, dataDir, logger });
    handler = new ScriptedWebHandler(() => adapter);
    await adapter.start(handler);
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'threadlab-web-e2e-'));
    await startAdapter();
    browser = await launchChromium();
    page = await browser.newPage({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
    // The scripted reply carries `<img src=x onerror=…>`: DOMPurify parses it in an inert document,
    // which Chromium reports as a blocked inline handler, and the cleaned <img src="x"> is a 404. While the
    // restart test has the server down, Chromium logs each refused request itself (the page's own errors count).
    errors = watchPageErrors(
      page,
      (text, url) =>
        url.endsWith('/vendor/purify.js') ||
        (url.endsWith('/x') && text.includes('404')) ||
        text.includes('net::ERR_CONNECTION_REFUSED'),
    );
    page.on('dialog', (d) => void d.dismiss());
  });

  afterAll(async () => {
    await browser?.close();
    await adapter?.stop();
    await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }); // a scripted reply may still be landing
  });

  it('uploads by picker and drag-and-drop, shows progress, the chart and a downloadable file', async () => {
    await openNewThread(page, adapter.url);
    const threadId = /#\/t\/([\w-]+)$/.exec(page.url())![1]!;

    await page.setInputFiles('#file-input', { name: 'sales.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
    await page.evaluate(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['{"a": 1}'], 'extra.json', { type: 'application/json' }));
      const target = document.getElementById('messages')!;
      target.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt, bubbles: true }));
      target.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    });
    await expect.poll(() => page.locator('#pending-files .chip').count()).toBe(2);

    await page.fill('#text', "```python\nimport pandas as pd\ndf = pd.read_csv('sales.csv')\ndf.plot()\n```");
    await page.click('#send');

    const reply = page.locator('article.msg.bot.kind-answer');
    await reply.waitFor({ timeout: 10_000 });
    const size = await decodedSize(page, 'article.msg.bot .images img.chart');
    expect(size).toEqual({ width: 320, height: 200 });

    // the core received an InboundMessage of this thread whose attachments download through the adapter
    const inbound = handler.messages.at(-1)!;
    expect(inbound.thread).toEqual({ platform: 'web', workspace: 'local', channel: 'web', thread: threadId });
    expect(inbound.text).toContain('df.plot()');
    expect(inbound.attachments.map((a) => a.name).sort()).toEqual(['extra.json', 'sales.csv']);
    expect(inbound.attachments.every((a) => a.url?.startsWith('web-upload:'))).toBe(true);
    expect(handler.downloads.find((d) => d.name === 'sales.csv')?.data.toString()).toBe(CSV);

    // markdown rendered, code highlighted, HTML sanitised
    await expect.poll(() => reply.locator('.text strong').textContent()).toBe('chart');
    expect(await reply.locator('.text code.hljs .hljs-keyword').count()).toBeGreaterThan(0);
    expect(await reply.locator('[onerror]').count()).toBe(0);
    expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
    expect(await reply.locator('details.run').count()).toBe(1);

    // generated file downloads with its bytes
    const [download] = await Promise.all([page.waitForEvent('download'), reply.locator('a.file.download').click()]);
    expect(download.suggestedFilename()).toBe('summary.csv');
    expect(await readFile((await download.path())!, 'utf8')).toBe(`# summary\n${CSV}`);

    // click to enlarge, Escape closes
    await reply.locator('.images img.chart').click();
    await page.locator('#lightbox').waitFor({ state: 'visible' });
    expect((await decodedSize(page, '#lightbox-img')).width).toBe(320);
    await page.keyboard.press('Escape');
    await page.locator('#lightbox').waitFor({ state: 'hidden' });
    await expect.poll(() => page.locator('#status').textContent()).toBe('Done');
    await screenshot(page, 'web-chat-adapter');
  });

  it('shows the code being run live and Stop interrupts it with a visible status', async () => {
    await page.fill('#text', '```python\nimport time; time.sleep(60)\n```');
    await page.keyboard.press('Enter');
    const live = page.locator('article.msg.progress');
    await live.locator('code.hljs').filter({ hasText: 'time.sleep(60)' }).waitFor({ timeout: 5000 });
    await expect.poll(() => live.locator('.live-output').textContent()).toContain('running…');
    expect(await page.locator('#stop').isEnabled()).toBe(true);
    const clickedAt = Date.now();
    await page.click('#stop');
    await page.locator('#status', { hasText: 'Stopped' }).waitFor({ timeout: 5000 });
    expect(Date.now() - clickedAt).toBeLessThan(5000);
    expect(await page.locator('#stop').isDisabled()).toBe(true);
    expect(await live.count()).toBe(0);
    const key = threadKey(handler.messages.at(-1)!.thread);
    expect(handler.cancels).toContain(key);
    await page.locator('article.msg.bot.kind-notice', { hasText: 'Stopped' }).waitFor();
  });

  it('resets the thread through a reset command', async () => {
    await page.click('#reset');
    await page.locator('article.msg.bot', { hasText: 'Thread reset' }).waitFor({ timeout: 5000 });
    expect(handler.messages.at(-1)!.command).toEqual({ name: 'reset' });
  });

  it('keeps the history, images and files across a restart', async () => {
    const url = page.url();
    const countBefore = await page.locator('article.msg').count();
    await adapter.stop();
    // The page refreshes its thread list while the server is down: it says so, and throws nothing.
    await page.evaluate(() => window.dispatchEvent(new HashChangeEvent('hashchange')));
    await page.locator('#status.error', { hasText: 'Threadlab cannot be reached right now' }).waitFor();
    const port = new URL(adapter.url).port;
    adapter = new WebChatAdapter({ port: Number(port), dataDir, logger });
    handler = new ScriptedWebHandler(() => adapter);
    await adapter.start(handler);
    await page.goto(url);
    await page.reload();
    await expect.poll(() => page.locator('article.msg').count()).toBe(countBefore);
    expect((await decodedSize(page, 'article.msg.bot .images img.chart')).width).toBe(320);
    expect(await page.locator('.thread-item').count()).toBe(1);
    expect(await page.locator('.thread-item .thread-title').textContent()).toBe(
      "import pandas as pd df = pd.read_csv('sales.csv') df.plot()",
    );
    expect(errors).toEqual([]);
  });
});
