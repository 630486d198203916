import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium, headless, with nothing that reaches the network on its own. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** Screenshots kept by the web tests (test-results/ is gitignored). */
export const SCREENSHOT_DIR = join(process.cwd(), 'test-results', 'web');

export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Collects page errors, failed loads and Content-Security-Policy violations, which must stay empty.
 * `ignore` skips expected ones (a test's own XSS payload).
 */
export function watchPageErrors(page: Page, ignore: (text: string, url: string) => boolean = () => false): string[] {
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    const url = msg.location().url;
    if (msg.type() === 'error' && !ignore(msg.text(), url)) errors.push(`console: ${msg.text()} (${url})`);
  });
  return errors;
}

/**
 * Makes a thread through the API (`POST /api/threads`, with the page's cookies) and opens the web chat on it;
 * resolves with its id once the page shows it. The page's own "+ New thread" makes no thread until the first
 * message (web-phone.test.ts tests that); tests of other features want the thread's id before they send.
 */
export async function openNewThread(page: Page, url: string): Promise<string> {
  const res = await page.request.post(`${url}/api/threads`, { data: {} });
  if (res.status() !== 201) throw new Error(`POST /api/threads answered ${res.status()}: ${await res.text()}`);
  const { id } = ((await res.json()) as { thread: { id: string } }).thread;
  await page.goto(`${url}/#/t/${id}`);
  // The hash changes before the page's hashchange handler runs; a message sent in between goes to the old thread.
  await page.locator(`#thread-list .thread-item.active[data-id="${id}"]`).waitFor({ timeout: 60_000 });
  return id;
}

/** Types `text` into the page's message box and sends it with Enter, as a person does. */
export async function sendMessage(page: Page, text: string): Promise<void> {
  await page.fill('#text', text);
  await page.keyboard.press('Enter');
}

/** The bot's messages in the page that contain `text`. */
export const botMessage = (page: Page, text: string | RegExp) => page.locator('article.msg.bot', { hasText: text });

const threadIdIn = (url: string): string | undefined => /#\/t\/([\w-]+)$/.exec(url)?.[1];

/** The id of the web chat thread the page shows (`#/t/<id>`). */
export function threadIdOf(page: Page): string {
  const id = threadIdIn(page.url());
  if (!id) throw new Error(`the page shows no thread: ${page.url()}`);
  return id;
}

/** Waits until an image is loaded and decoded, and returns its natural size. */
export async function decodedSize(page: Page, selector: string): Promise<{ width: number; height: number }> {
  const img = page.locator(selector).first();
  await img.waitFor({ state: 'visible' });
  return img.evaluate(async (node) => {
    const image = node as HTMLImageElement;
    await image.decode();
    return { width: image.naturalWidth, height: image.naturalHeight };
  });
}
