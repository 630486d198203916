/**
 * The web chat's page with a data source (issue 38): the header lists the sources the page may query, a query shows
 * live as a step (the source and SQL, then rows and time) and in the answer as a folded step like a run, with its
 * row count, time and DataFrame, the SQL inside. A real browser, the real core and Docker sandbox, a real PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAiServer } from '../../fakes/fake-openai-server.js';
import { startPostgres, writeSourcesFile, type PrivatePostgres } from '../../support/postgres-server.js';
import { botMessage, launchChromium, openNewThread, screenshot, sendMessage, watchPageErrors } from '../web/browser.js';
import { startWebBot, type WebBotRig } from '../web/web-bot-rig.js';
import { REVENUE_QUESTION, REVENUE_SQL, revenueModel } from './revenue-model.js';

let pg: PrivatePostgres;
let llm: FakeOpenAiServer;
let rig: WebBotRig;
let browser: Browser;
let page: Page;
let errors: string[];
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'web-query-step-'));
  pg = await startPostgres();
  llm = new FakeOpenAiServer({ fallback: revenueModel });
  await llm.start();
  const sourcesFile = writeSourcesFile(dir, [
    { name: 'sales', kind: 'postgres', url: pg.urlFor(pg.reader), passwordEnv: 'SALES_PW', description: 'Sales 2024' },
  ]);
  rig = await startWebBot('query-step', {
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: llm.baseUrl,
    OPENAI_MODEL: 'fake-gpt',
    THREADLAB_SOURCES_FILE: sourcesFile,
    SALES_PW: pg.reader.password,
  });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  errors = watchPageErrors(page);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await llm?.stop();
  expect(await rig?.stop()).toEqual([]);
  await pg?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a query in the web chat', () => {
  it('the header names the source; the answer shows the query as a folded step with rows, time and the SQL', async () => {
    await openNewThread(page, rig.adapter.url);
    await expect.poll(() => page.locator('#sources').textContent()).toBe('🗄 sales');
    expect(await page.locator('#sources').getAttribute('title')).toBe('sales: Sales 2024');
    await sendMessage(page, REVENUE_QUESTION);
    const answer = botMessage(page, 'leads with');
    await answer.waitFor({ timeout: 120_000 });
    const step = answer.locator('details.run.query');
    await expect
      .poll(() => step.locator('summary').textContent())
      .toMatch(/^query · sales · 6 rows · \d+ ms → revenue$/);
    expect(await step.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    await step.locator('summary').click();
    await expect.poll(() => step.locator('code.language-sql').textContent()).toBe(REVENUE_SQL);
    await expect.poll(() => answer.locator('img.chart').count()).toBe(1);
    await screenshot(page, 'query-step');
    expect(errors).toEqual([]);
  }, 180_000);
});
