import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { startWebBot, type WebBotRig } from './web-bot-rig.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebChatAdapter } from '../../../adapters/web/index.js';
import { launchChromium, screenshot, watchPageErrors, openNewThread } from './browser.js';

// Issue 18, real tables, on the whole product: the real runner makes the table display, the real reply
// builder reads its CSV back, and the page draws it in a real browser. Direct mode: no LLM is involved.

describe('web chat: DataFrames as tables', () => {
  let adapter: WebChatAdapter;
  let rig: WebBotRig | undefined;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    rig = await startWebBot('tables', { THREADLAB_SANDBOX_TIMEOUT_MS: '120000' });
    ({ adapter } = rig);
    browser = await launchChromium();
    page = await browser.newPage({ acceptDownloads: true, viewport: { width: 1280, height: 1000 } });
    errors = watchPageErrors(page);
    await openNewThread(page, adapter.url);
  });

  afterAll(async () => {
    await browser?.close();
    expect(await rig?.stop()).toEqual([]);
  });

  const send = async (code: string) => {
    const before = await page.locator('article.msg.bot').count();
    await page.fill('#text', ['```python', code, '```'].join('\n'));
    await page.click('#send');
    const reply = page.locator('article.msg.bot').nth(before);
    await reply.waitFor({ timeout: 90_000 });
    return reply;
  };

  it('10,000 rows: a scrollable table of the first 100, "9,900 more rows", and the CSV with every row', async () => {
    const reply = await send(
      [
        'import pandas as pd',
        'df = pd.DataFrame({"n": range(10_000), "sq": [i * i for i in range(10_000)], "name": [f"r{i}" for i in range(10_000)]})',
        'df',
      ].join('\n'),
    );
    const table = reply.locator('figure.data-table');
    await table.waitFor();
    expect(await table.locator('thead th').allTextContents()).toEqual(['n', 'sq', 'name']);
    expect(await table.locator('tbody tr').count()).toBe(100);
    expect(await table.locator('tbody tr').nth(99).locator('td').allTextContents()).toEqual(['99', '9801', 'r99']);
    expect(await table.locator('tfoot').textContent()).toBe('… 9,900 more rows');
    expect(await table.locator('figcaption').textContent()).toContain(
      'Table 1: 10,000 rows × 3 columns, showing the first 100 rows; every row is in table-1.csv.',
    );
    // The table scrolls inside its box rather than growing the page.
    const box = await table.locator('.table-scroll').evaluate((n) => ({ h: n.clientHeight, sh: n.scrollHeight }));
    expect(box.h).toBeLessThanOrEqual(420);
    expect(box.sh).toBeGreaterThan(box.h);
    const [download] = await Promise.all([page.waitForEvent('download'), table.locator('a.table-csv').click()]);
    expect(download.suggestedFilename()).toBe('table-1.csv');
    const csv = (await readFile((await download.path())!, 'utf8')).trimEnd().split('\n');
    expect(csv).toHaveLength(10_001);
    expect(csv[10_000]).toBe('9999,99980001,r9999');
    // pandas' text of the frame is not repeated as output beside the table
    expect(await reply.textContent()).not.toContain('[10000 rows x 3 columns]');
    expect(await reply.locator('.text').count()).toBe(0); // no "Done." above a table
    await screenshot(page, 'web-tables-10000');
  });

  it('a small frame is whole, without a CSV; markup in cells stays text', async () => {
    const reply = await send(
      'pd.DataFrame({"city": ["Oslo", "<img src=x onerror=window.pwned=1>"], "temp": [3.5, 19.25]})',
    );
    const table = reply.locator('figure.data-table');
    await table.waitFor();
    expect(await table.locator('tbody tr').count()).toBe(2);
    expect(await table.locator('tbody tr').nth(1).locator('td').first().textContent()).toBe(
      '<img src=x onerror=window.pwned=1>',
    );
    expect(await table.locator('img').count()).toBe(0);
    expect(await table.locator('tfoot').count()).toBe(0);
    expect(await table.locator('a.table-csv').count()).toBe(0);
    expect(await table.locator('figcaption').textContent()).toBe('Table 1: 2 rows × 2 columns.');
    expect(await table.locator('td.num').allTextContents()).toEqual(['3.5', '19.25']);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
  });

  it("a chart's matplotlib return value is not shown as output", async () => {
    const reply = await send('import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.title("t")');
    await reply.locator('img.chart').waitFor();
    expect(await reply.textContent()).not.toContain('Text(0.5');
    expect(errors).toEqual([]);
  });
});
