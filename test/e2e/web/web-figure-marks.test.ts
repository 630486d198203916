/**
 * The web chat page's marks on an answer's figures (adapters/web/public/figure-marks.js), in Chromium, on
 * answers whose Markdown makes marking hard: figures in bold, in a link's text and its address, in a table
 * and in highlighted code; private-use characters the answer already holds; a mark that does not stand where
 * it says; a title that looks like HTML. The web adapter alone, with a core that replies as scripted.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebChatAdapter } from '../../../adapters/web/index.js';
import type { FigureMark } from '../../../src/domain/figures.js';
import type { InboundMessage } from '../../../src/domain/messages.js';
import type { Reply } from '../../../src/domain/reply.js';
import type { InboundHandler } from '../../../src/ports/platform-adapter.js';
import { createLogger } from '../../../src/logger.js';
import { launchChromium, openNewThread, watchPageErrors } from './browser.js';

const logger = createLogger({ level: 'silent' });

/** Replies to every message with the next scripted Reply. */
class ReplyingHandler implements InboundHandler {
  readonly replies: Reply[] = [];
  constructor(private readonly adapter: () => WebChatAdapter) {}
  async onMessage(message: InboundMessage): Promise<void> {
    // Accepted now, answered after, as the Bot does.
    void this.answer(message);
  }
  private async answer(message: InboundMessage): Promise<void> {
    const progress = this.adapter().progress(message);
    try {
      const reply = this.replies.shift();
      if (reply) await this.adapter().reply(message, reply);
    } finally {
      await progress.close();
    }
  }
  async onCancel(): Promise<void> {}
}

/** A mark on the `nth` occurrence (0-based) of `text` in `answer`. */
function markAt(answer: string, text: string, nth: number, found: boolean, title: string): FigureMark {
  let start = -1;
  for (let i = 0; i <= nth; i += 1) start = answer.indexOf(text, start + 1);
  if (start < 0) throw new Error(`${text} #${nth} is not in the answer`);
  return { start, end: start + text.length, text, found, title };
}

describe('figure marks in the web chat page (Chromium)', () => {
  let dataDir: string;
  let adapter: WebChatAdapter;
  let handler: ReplyingHandler;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'threadlab-web-marks-'));
    adapter = new WebChatAdapter({ port: 0, dataDir, logger });
    handler = new ReplyingHandler(() => adapter);
    await adapter.start(handler);
    browser = await launchChromium();
    page = await browser.newPage();
    errors = watchPageErrors(page);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await adapter?.stop();
    await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }); // a scripted reply may still be landing
  });

  it('marks figures through Markdown, leaves addresses and code intact, and leaves no bracket behind', async () => {
    const answer = [
      'Revenue totals **54**, see [the 13.5 report](https://example.com/q/13.5?x=54).',
      'A stray \uE000private\uE001 mark and \uE105 an index.',
      '',
      '| month | growth |',
      '| --- | --- |',
      '| Apr | 12.4 % |',
      '',
      '```python',
      'total = 54',
      '```',
    ].join('\n');
    const marks = [
      markAt(answer, '54', 0, true, 'run 1, line 1'),
      markAt(answer, '13.5', 0, true, 'run 1, line 2'),
      markAt(answer, '13.5', 1, true, 'run 1, line 2'), // inside the link's address
      markAt(answer, '54', 1, true, 'run 1, line 1'), // inside the link's query
      {
        ...markAt(answer, '12.4 %', 0, false, 'not found in any output'),
        title: '<img src=x onerror="window.__xss=1">',
      },
      markAt(answer, '54', 2, true, 'run 1, line 1'), // inside highlighted code
      { start: 0, end: 7, text: 'nothing', found: false, title: 'stands elsewhere' }, // not where it says
    ];
    handler.replies.push({
      kind: 'answer',
      text: answer,
      runs: [],
      images: [],
      files: [],
      figures: {
        checked: 6,
        notFound: 1,
        notFoundTexts: ['12.4 %'],
        unchecked: 0,
        line: '⚠ 1 figure not found in any output: 12.4 %',
        marks,
        verificationRound: false,
      },
    });
    await openNewThread(page, adapter.url);
    await page.fill('#text', 'how did revenue do?');
    await page.keyboard.press('Enter');
    const reply = page.locator('article.msg.bot');
    await reply.locator('.figures-line').waitFor({ timeout: 10_000 });

    expect(await reply.locator('.figures-line.missing').textContent()).toBe(
      '⚠ 1 figure not found in any output: 12.4 %',
    );
    expect(await reply.locator('.text strong mark.figure.found').textContent()).toBe('54');
    const link = reply.locator('.text a');
    expect(await link.getAttribute('href')).toBe('https://example.com/q/13.5?x=54');
    expect(await link.locator('mark.figure.found').getAttribute('title')).toBe('run 1, line 2');
    const missing = reply.locator('.text td mark.figure.missing');
    expect(await missing.textContent()).toBe('12.4 %');
    // The title is text in an attribute, never markup.
    expect(await missing.getAttribute('title')).toBe('<img src=x onerror="window.__xss=1">');
    expect(await reply.locator('.text img').count()).toBe(0);
    expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
    expect((await reply.locator('.text pre code').textContent())?.trim()).toBe('total = 54');
    expect(await reply.locator('mark', { hasText: 'nothing' }).count()).toBe(0);
    // No bracket is left anywhere: not in text, not in an attribute, not percent-encoded in an address.
    const html = await reply.innerHTML();
    expect(/[\uE000-\uE1FF]/.test(html)).toBe(false);
    expect(html).not.toMatch(/%EE%8/i);
    expect(await reply.locator('.text').textContent()).toContain('A stray private mark and  an index.');
    expect(errors).toEqual([]);
  });

  it('marks at most 256 figures of one answer; the rest read as plain text', async () => {
    const figures = Array.from({ length: 300 }, (_, i) => `${i + 1000}`);
    const answer = `Counts: ${figures.join(', ')}.`;
    const marks = figures.map((f) => markAt(answer, f, 0, true, 'run 1, line 1'));
    handler.replies.push({
      kind: 'answer',
      text: answer,
      runs: [],
      images: [],
      files: [],
      figures: {
        checked: 300,
        notFound: 0,
        notFoundTexts: [],
        unchecked: 0,
        line: '✓ 300 figures checked against run output',
        marks,
        verificationRound: false,
      },
    });
    await page.fill('#text', 'count them');
    await page.keyboard.press('Enter');
    const reply = page.locator('article.msg.bot', { hasText: 'Counts:' });
    await reply.locator('.figures-line').waitFor({ timeout: 10_000 });
    expect(await reply.locator('mark.figure').count()).toBe(256);
    expect(await reply.locator('mark.figure').last().textContent()).toBe('1255');
    expect((await reply.locator('.text').textContent())?.trim()).toBe(answer);
    expect(/[\uE000-\uE1FF]/.test(await reply.innerHTML())).toBe(false);
  });

  it('shows nothing about figures when the answer states none', async () => {
    handler.replies.push({
      kind: 'answer',
      text: 'Nothing counted here.',
      runs: [],
      images: [],
      files: [],
      figures: {
        checked: 0,
        notFound: 0,
        notFoundTexts: [],
        unchecked: 0,
        line: '',
        marks: [],
        verificationRound: false,
      },
    });
    await page.fill('#text', 'anything?');
    await page.keyboard.press('Enter');
    const reply = page.locator('article.msg.bot', { hasText: 'Nothing counted here.' });
    await reply.waitFor({ timeout: 10_000 });
    expect(await reply.locator('.figures-line, mark').count()).toBe(0);
  });
});
