import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebChatAdapter } from '../../../adapters/web/index.js';
import { isThreadlabError } from '../../../src/domain/errors.js';
import { createLogger } from '../../../src/logger.js';
import { launchChromium } from './browser.js';
import { ScriptedWebHandler } from './scripted-web-handler.js';
import { downloadAll } from '../../support/download.js';

// The HTTP API as a script uses it: JSON, base64 attachments, SSE with replay, tokens.
const logger = createLogger({ level: 'silent' });
const TOKEN = 'e2e-web-token-0123456789';

/** Reads an SSE stream until `until` matches the collected text or `timeoutMs` passes. */
async function readEvents(
  url: string,
  init: RequestInit,
  until: (text: string) => boolean,
  timeoutMs = 5000,
): Promise<string> {
  const controller = new AbortController();
  const res = await fetch(url, { ...init, signal: controller.signal });
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + timeoutMs;
  while (!until(text) && Date.now() < deadline) {
    const next = await Promise.race([
      reader.read(),
      new Promise<{ done: true; value?: undefined }>((r) => setTimeout(() => r({ done: true }), 200)),
    ]);
    if (next.value) text += decoder.decode(next.value);
  }
  controller.abort();
  return text;
}

// API answers are checked field by field below; a loose type keeps those checks short.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const eventIds = (text: string, name: string) =>
  [...text.matchAll(/id: (\d+)\nevent: (\w+)/g)].filter((m) => m[2] === name).map((m) => Number(m[1]));

describe('web chat HTTP API', () => {
  let dataDir: string;
  let adapter: WebChatAdapter;
  let handler: ScriptedWebHandler;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'threadlab-web-api-'));
    adapter = new WebChatAdapter({ port: 0, dataDir, logger, maxUploadBytes: 64 * 1024 });
    handler = new ScriptedWebHandler(() => adapter);
    await adapter.start(handler);
  });
  afterAll(async () => {
    await adapter?.stop();
    await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }); // a scripted reply may still be landing
  });

  const json = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${adapter.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: res.status === 204 ? {} : ((await res.json()) as Json) };
  };

  it('drives a thread: post with base64 attachment, stream progress and reply, fetch the files', async () => {
    const { body: created } = await json('POST', '/api/threads', { title: 'from a script' });
    const id = created.thread.id as string;
    const csv = 'a,b\n1,2\n';
    const posted = await json('POST', `/api/threads/${id}/messages`, {
      id: 'script-msg-1',
      text: '```python\nprint(1)\n```',
      attachments: [{ name: 'd.csv', dataBase64: Buffer.from(csv).toString('base64') }],
    });
    expect(posted.status).toBe(202);
    expect(posted.body.message.attachments[0]).toMatchObject({ name: 'd.csv', mime: 'text/csv', bytes: 8 });
    // the same client id again is stored and run once
    const again = await json('POST', `/api/threads/${id}/messages`, { id: 'script-msg-1', text: 'x' });
    expect(again).toMatchObject({ status: 200, body: { duplicate: true } });
    expect(handler.messages.filter((m) => m.id === 'web-script-msg-1')).toHaveLength(1);

    // a Last-Event-ID older than anything buffered (a previous run of the server) asks for a resync
    const stale = await readEvents(
      `${adapter.url}/api/threads/${id}/events`,
      { headers: { 'last-event-id': '1' } },
      (t) => t.includes('event: state'),
    );
    expect(stale).toMatch(/event: resync[\s\S]*event: state/);
    await expect.poll(() => json('GET', `/api/threads/${id}/messages`).then((r) => r.body.messages.length)).toBe(2);

    const { body: msgs } = await json('GET', `/api/threads/${id}/messages`);
    const reply = msgs.messages.find((m: { role: string }) => m.role === 'bot');
    expect(reply.kind).toBe('answer');
    const image = await fetch(`${adapter.url}${reply.images[0].url}`);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.headers.get('content-disposition')).toMatch(/^inline/);
    expect(
      Buffer.from(await image.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    const file = await fetch(`${adapter.url}${reply.files[0].url}`);
    expect(file.headers.get('content-disposition')).toBe(
      `attachment; filename="summary.csv"; filename*=UTF-8''summary.csv`,
    );
    expect(file.headers.get('content-security-policy')).toContain('sandbox');
    expect(await file.text()).toBe(`# summary\n${csv}`);
  });

  it('replays exactly the events after Last-Event-ID, and nothing is lost when nobody listens', async () => {
    const { body } = await json('POST', '/api/threads', {});
    const id = body.thread.id as string;
    const first = await readEvents(`${adapter.url}/api/threads/${id}/events`, {}, (t) => t.includes('event: state'));
    const stateId = eventIds(first, 'state')[0]!;
    await json('POST', `/api/threads/${id}/messages`, { text: 'hello' });
    await expect.poll(() => json('GET', `/api/threads/${id}/messages`).then((r) => r.body.messages.length)).toBe(2);
    const replay = await readEvents(
      `${adapter.url}/api/threads/${id}/events`,
      { headers: { 'last-event-id': String(stateId) } },
      (t) => t.includes('event: state'),
    );
    const names = [...replay.matchAll(/event: (\w+)/g)].map((m) => m[1]);
    expect(names).toEqual([
      'message',
      'progress',
      'progress',
      'progress',
      'progress',
      'progress',
      'reply',
      'idle',
      'state',
    ]);
    expect(replay).toContain('"type":"code"');
  });

  it('downloads uploads for the core with a size cap, and refuses unknown ones', async () => {
    const { body } = await json('POST', '/api/threads', {});
    const posted = await json('POST', `/api/threads/${body.thread.id}/messages`, {
      text: 'hi',
      attachments: [{ name: 'ten.bin', dataBase64: Buffer.alloc(10, 7).toString('base64') }],
    });
    const attachment = {
      id: posted.body.message.attachments[0].id,
      name: 'ten.bin',
      url: `web-upload:${posted.body.message.attachments[0].id}`,
    };
    expect(await downloadAll(adapter, attachment, { maxBytes: 10 })).toEqual(Buffer.alloc(10, 7));
    const tooBig = await downloadAll(adapter, attachment, { maxBytes: 9 }).catch((e: unknown) => e);
    expect(isThreadlabError(tooBig, 'attachment_rejected')).toBe(true);
    const unknown = await adapter
      .download({ id: 'x', name: 'x', url: 'web-upload:../../etc/passwd' }, { maxBytes: 10 })
      .catch((e: unknown) => e);
    expect(isThreadlabError(unknown, 'attachment_rejected')).toBe(true);
  });

  it('refuses oversized uploads (413), unknown threads (404) and foreign Host headers (403)', async () => {
    const { body } = await json('POST', '/api/threads', {});
    const big = await json('POST', `/api/threads/${body.thread.id}/messages`, {
      attachments: [{ name: 'big.bin', dataBase64: Buffer.alloc(64 * 1024 + 1).toString('base64') }],
    });
    expect(big.status).toBe(413);
    expect((await json('GET', '/api/threads/nope/messages')).status).toBe(404);
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(adapter.url);
      request(
        { host: url.hostname, port: url.port, path: '/api/threads', headers: { host: 'rebind.example' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      )
        .on('error', reject)
        .end();
    });
    expect(status).toBe(403);
    const deleted = await json('DELETE', `/api/threads/${body.thread.id}`);
    expect(deleted.status).toBe(204);
    expect((await json('GET', `/api/threads/${body.thread.id}`)).status).toBe(404);
  });
});

describe('web chat with a token', () => {
  let dataDir: string;
  let adapter: WebChatAdapter;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'threadlab-web-token-'));
    adapter = new WebChatAdapter({ port: 0, dataDir, logger, token: TOKEN });
    await adapter.start(new ScriptedWebHandler(() => adapter));
  });
  afterAll(async () => {
    await adapter?.stop();
    await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }); // a scripted reply may still be landing
  });

  it('answers 401 without it, on the API and the page', async () => {
    expect((await fetch(`${adapter.url}/api/threads`)).status).toBe(401);
    expect((await fetch(`${adapter.url}/`)).status).toBe(401);
    expect((await fetch(`${adapter.url}/api/threads/x/events`)).status).toBe(401);
    expect(
      (await fetch(`${adapter.url}/api/threads`, { headers: { authorization: 'Bearer wrong-token-000000000' } }))
        .status,
    ).toBe(401);
    expect((await fetch(`${adapter.url}/api/threads`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(
      200,
    );
  });

  it('lets the browser in with ?token= once, then by cookie', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${adapter.url}/?token=${TOKEN}`);
      expect(page.url()).toBe(`${adapter.url}/`);
      await page.click('#new-thread');
      await page.fill('#text', 'hello');
      await page.click('#send');
      await page.waitForURL(/#\/t\/[\w-]+$/); // the thread is made by its first message
      await page.locator('article.msg.bot.kind-answer .images img.chart').waitFor({ timeout: 10_000 });
      const cookies = await page.context().cookies();
      expect(cookies.find((c) => c.name === 'threadlab_token')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    } finally {
      await browser.close();
    }
  });
});
