import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { startWebBot, type WebBotRig } from './web-bot-rig.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebChatAdapter } from '../../../adapters/web/index.js';
import { createLogger } from '../../../src/logger.js';
import { FakeOpenAiServer, fakeRunCode, fakeSay } from '../../fakes/fake-openai-server.js';
import { decodedSize, launchChromium, screenshot, watchPageErrors, openNewThread } from './browser.js';

// The whole product behind the web chat: the real core (Bot), queue, interpreter loop and Docker sandbox;
// only the LLM is a local fake speaking the OpenAI wire protocol.
const logger = createLogger({ level: process.env.THREADLAB_TEST_LOG ?? 'silent' });
const CSV = 'month,sales\nJan,10\nFeb,14\nMar,9\n';

describe('web chat on the full product', () => {
  let llm: FakeOpenAiServer;
  let adapter: WebChatAdapter;
  let rig: WebBotRig | undefined;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    llm = new FakeOpenAiServer();
    await llm.start();
    rig = await startWebBot('full', {
      OPENAI_API_KEY: 'sk-e2e-web-key-00000000',
      OPENAI_BASE_URL: llm.baseUrl,
      OPENAI_MODEL: 'fake-gpt',
      THREADLAB_LLM_MAX_RETRIES: '0',
      THREADLAB_SANDBOX_TIMEOUT_MS: '120000',
    });
    ({ adapter } = rig);
    browser = await launchChromium();
    page = await browser.newPage({ acceptDownloads: true, viewport: { width: 1280, height: 1000 } });
    errors = watchPageErrors(page);
  });

  afterAll(async () => {
    await browser?.close();
    await llm?.stop();
    // whatever the sandbox left behind (it should be nothing) goes too
    expect(await rig?.stop()).toEqual([]);
  });

  it('uploads a CSV and runs a fenced block that plots it: chart inline, generated file downloads', async () => {
    await openNewThread(page, adapter.url);
    await page.setInputFiles('#file-input', { name: 'sales.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
    await page.fill(
      '#text',
      [
        '```python',
        'import pandas as pd',
        'import matplotlib.pyplot as plt',
        "df = pd.read_csv('sales.csv')",
        "df.assign(double=df.sales * 2).to_csv('doubled.csv', index=False)",
        "df.plot(x='month', y='sales', title='Sales by month')",
        'plt.show()',
        'print(df.sales.sum())',
        '```',
      ].join('\n'),
    );
    await page.click('#send');
    const reply = page.locator('article.msg.bot').first();
    await reply.waitFor({ timeout: 90_000 });
    const size = await decodedSize(page, 'article.msg.bot img.chart');
    expect(size.width).toBeGreaterThan(100);
    expect(size.height).toBeGreaterThan(100);
    expect(await reply.locator('details.run').textContent()).toContain('33');

    const link = reply.locator('a.file.download', { hasText: 'doubled.csv' });
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe('doubled.csv');
    expect(await readFile((await download.path())!, 'utf8')).toBe(
      'month,sales,double\nJan,10,20\nFeb,14,28\nMar,9,18\n',
    );
    expect(llm.requests).toHaveLength(0); // direct mode: no LLM
  });

  it('answers a natural-language request through the LLM with a chart that uses the thread state', async () => {
    llm.push(
      fakeRunCode(
        // The answer states the peak (14): the run prints it, so the answer's figure is checked against it.
        "import matplotlib.pyplot as plt\nplt.figure()\nplt.bar(df['month'], df['sales'])\nplt.title('Sales per month')\nplt.show()\nprint(df['sales'].max())",
      ),
      fakeSay('Sales peaked in **February** (14); the bar chart is attached.'),
    );
    await page.fill('#text', 'Which month sold best? Show me a bar chart.');
    await page.keyboard.press('Enter');
    const reply = page.locator('article.msg.bot', { hasText: 'peaked' });
    await reply.waitFor({ timeout: 90_000 });
    expect(await reply.locator('.text strong').textContent()).toBe('February');
    expect(await reply.locator('.figures-line').textContent()).toBe('✓ 1 figure checked against run output');
    expect(await reply.locator('mark.figure.found').getAttribute('title')).toBe('run 1, line 1');
    const size = await reply
      .locator('img.chart')
      .first()
      .evaluate(async (node) => {
        const img = node as HTMLImageElement;
        await img.decode();
        return img.naturalWidth;
      });
    expect(size).toBeGreaterThan(100);
    expect(llm.requests).toHaveLength(2);
    expect(JSON.stringify(llm.requests[0]!.body.messages)).toContain('Which month sold best?');
    await expect.poll(() => page.locator('#status').textContent()).toBe('Done');
    await screenshot(page, 'web-full-product');
  });

  it('Stop interrupts a long run within seconds, with a visible status', async () => {
    await page.fill('#text', '```python\nimport time; time.sleep(60)\n```');
    await page.keyboard.press('Enter');
    await page.locator('article.msg.progress code', { hasText: 'time.sleep(60)' }).waitFor({ timeout: 60_000 });
    await page.waitForTimeout(500); // let the run really start in the container
    const clickedAt = Date.now();
    await page.click('#stop');
    await page.locator('#status', { hasText: 'Stopped' }).waitFor({ timeout: 10_000 });
    const stoppedMs = Date.now() - clickedAt;
    expect(stoppedMs).toBeLessThan(10_000);
    expect(await page.locator('#stop').isDisabled()).toBe(true);
    expect(await page.locator('article.msg.progress').count()).toBe(0);
    await page.locator('article.msg.bot', { hasText: 'KeyboardInterrupt' }).waitFor({ timeout: 10_000 });
    await screenshot(page, 'web-full-product-stopped');
    logger.info({ stoppedMs }, 'stop took');
    process.stderr.write(`[web e2e] Stop → stopped status in ${stoppedMs} ms\n`);

    // the interpreter survived the interrupt: the thread's variables are still there
    await page.fill('#text', '```python\nprint(df.shape)\n```');
    await page.keyboard.press('Enter');
    await page.locator('article.msg.bot details.run', { hasText: '(3, 2)' }).waitFor({ timeout: 60_000 });
    expect(errors).toEqual([]);
  });

  it('a message is drawn only in the thread it was sent to, also when the page moved on while it was sent', async () => {
    const first = await openNewThread(page, adapter.url);
    // Hold the POST until the page shows another thread, as a slow network would.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/threads/*/messages', async (route) => {
      if (route.request().method() === 'POST') await held;
      await route.continue();
    });
    await page.fill('#text', '```python\nprint("sent-to-first")\n```');
    await page.keyboard.press('Enter');
    const responded = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/messages'));
    await page.click('#new-thread');
    await page.waitForURL((u) => !u.href.endsWith(first));
    await page.locator('#empty').waitFor(); // the new thread's empty composer
    release();
    await responded;
    await page.unrouteAll({ behavior: 'wait' });
    // The message and its answer belong to the first thread (the server's view) ...
    await expect
      .poll(
        async () => {
          const res = await fetch(`${adapter.url}/api/threads/${first}/messages`);
          return ((await res.json()) as { messages: { role: string }[] }).messages.map((m) => m.role);
        },
        { timeout: 60_000 },
      )
      .toEqual(['user', 'bot']);
    // ... and the page, showing the new thread, drew neither.
    expect(await page.locator('#messages').textContent()).not.toContain('sent-to-first');
    await page.goto(`${adapter.url}/#/t/${first}`);
    await page.locator('article.msg.user', { hasText: 'sent-to-first' }).waitFor({ timeout: 10_000 });
    expect(errors).toEqual([]);
  });
});
