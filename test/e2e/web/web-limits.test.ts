import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES_PAGE } from '../../../adapters/web/api-routes.js';
import { WebChatAdapter } from '../../../adapters/web/index.js';
import { createLogger } from '../../../src/logger.js';
import { launchChromium, watchPageErrors } from './browser.js';
import { ScriptedWebHandler } from './scripted-web-handler.js';

const logger = createLogger({ level: 'silent' });
const MAX_THREADS = 3;
const MAX_UPLOAD_BYTES = 64 * 1024;
const MAX_REFUSED_BODY_BYTES = 8 * 1024 * 1024;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

/**
 * Posts `totalBytes` of multipart upload with `Connection: close` on a connection of its own (`agent:
 * false`), reading nothing before it finished sending, as simple clients do: a refusal the server sent
 * meanwhile is only read if the server did not reset the connection under the upload. Resolves with the
 * answer's status, or the connection error, and the bytes written before the connection went.
 */
function closingUpload(
  url: string,
  totalBytes: number,
): Promise<{ status?: number; error?: string; sentBytes: number }> {
  return new Promise((resolve) => {
    const boundary = 'cl0se';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const req = request(url, {
      method: 'POST',
      agent: false,
      headers: {
        connection: 'close',
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + totalBytes + tail.length),
      },
    });
    let sentBytes = 0;
    let status: number | undefined;
    let error: string | undefined;
    req.on('response', (res) => {
      status = res.statusCode;
      res.resume();
    });
    req.on('error', (err) => (error ??= err.message));
    req.on('socket', (socket) => socket.pause());
    // Resolves once the connection is gone: the answer read, or the connection reset under the upload.
    req.on('close', () => resolve({ ...(status ? { status } : {}), ...(error ? { error } : {}), sentBytes }));
    void (async () => {
      const piece = Buffer.alloc(64 * 1024, 0x62);
      req.write(head);
      for (let sent = 0; sent < totalBytes && !req.destroyed; sent += piece.length) {
        const chunk = piece.subarray(0, Math.min(piece.length, totalBytes - sent));
        sentBytes += chunk.length;
        if (!req.write(chunk)) await new Promise((r) => (req.once('drain', r), req.once('close', r)));
      }
      if (!req.destroyed) req.end(tail);
      req.socket?.resume();
    })();
  });
}

/**
 * Sends a keep-alive request declaring a 256 MiB body and writes it on a raw socket, reading nothing;
 * resolves with the bytes written before the server closed the connection.
 */
function endlessBody(port: number, path: string): Promise<number> {
  const totalBytes = 256 * 1024 * 1024;
  return new Promise((resolve) => {
    let sentBytes = 0;
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(sentBytes));
    socket.pause();
    const piece = Buffer.alloc(64 * 1024, 0x63);
    const write = () => {
      while (!socket.destroyed && sentBytes < totalBytes) {
        sentBytes += piece.length;
        if (!socket.write(piece)) return void socket.once('drain', write);
      }
      socket.end(() => resolve(sentBytes));
    };
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: ${totalBytes}\r\n\r\n`,
    );
    write();
  });
}

describe('web chat limits: threads, history pages, refused uploads', () => {
  let dataDir: string;
  let adapter: WebChatAdapter;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'threadlab-web-limits-'));
    adapter = new WebChatAdapter({
      port: 0,
      dataDir,
      logger,
      maxThreads: MAX_THREADS,
      maxUploadBytes: MAX_UPLOAD_BYTES,
      server: { maxRefusedBodyBytes: MAX_REFUSED_BODY_BYTES },
    });
    await adapter.start(new ScriptedWebHandler(() => adapter));
  });
  afterAll(async () => {
    await adapter?.stop();
    await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }); // a scripted reply may still be landing
  });

  const json = async (method: string, path: string): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${adapter.url}${path}`, {
      method,
      ...(method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  };

  /** A thread whose history holds `count` messages `m0`…, written as the store writes them. */
  const threadWithMessages = async (count: number) => {
    const id = (await json('POST', '/api/threads')).body.thread.id as string;
    const lines = Array.from({ length: count }, (_, i) =>
      JSON.stringify({ id: `m${i}`, threadId: id, role: 'user', createdAtMs: i, text: `message ${i}` }),
    );
    await appendFile(join(dataDir, 'web', 'threads', id, 'messages.jsonl'), `${lines.join('\n')}\n`);
    return id;
  };

  it('refuses a thread beyond the limit with 507 until one is deleted', async () => {
    const created: string[] = [];
    for (let i = 0; i < MAX_THREADS; i++) {
      const res = await json('POST', '/api/threads');
      expect(res.status).toBe(201);
      created.push(res.body.thread.id as string);
    }
    const refused = await json('POST', '/api/threads');
    expect(refused.status).toBe(507);
    expect(refused.body.error.code).toBe('too_many_threads');
    expect((await json('GET', '/api/threads')).body.threads).toHaveLength(MAX_THREADS);
    expect((await json('DELETE', `/api/threads/${created.pop()}`)).status).toBe(204);
    expect((await json('POST', '/api/threads')).status).toBe(201);
    for (const t of (await json('GET', '/api/threads')).body.threads as Json[]) {
      await json('DELETE', `/api/threads/${t.id}`);
    }
  });

  it('pages the history: the latest page by default, earlier pages by cursor, bounded limits', async () => {
    const total = 250;
    const id = await threadWithMessages(total);
    const page = (query: string) => json('GET', `/api/threads/${id}/messages${query}`);

    const latest = await page('');
    expect(latest.status).toBe(200);
    expect(latest.body.messages).toHaveLength(MESSAGES_PAGE.defaultLimit);
    expect(latest.body.messages[0].id).toBe(`m${total - MESSAGES_PAGE.defaultLimit}`);
    expect(latest.body.messages.at(-1).id).toBe(`m${total - 1}`);
    expect(latest.body).toMatchObject({ hasMore: true, before: `m${total - MESSAGES_PAGE.defaultLimit}` });

    // Following the cursor gives every message once, in order.
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let guard = 0; guard < 10; guard++) {
      const res = await page(`?limit=60${cursor ? `&before=${cursor}` : ''}`);
      seen.unshift(...(res.body.messages as Json[]).map((m) => m.id as string));
      cursor = res.body.before as string | undefined;
      if (!res.body.hasMore) break;
    }
    expect(seen).toEqual(Array.from({ length: total }, (_, i) => `m${i}`));
    expect((await page('?before=m0')).body).toEqual({ messages: [], hasMore: false });

    expect((await page(`?limit=${MESSAGES_PAGE.maxLimit}`)).body.messages).toHaveLength(total);
    for (const bad of [`${MESSAGES_PAGE.maxLimit + 1}`, '0', '-1', '1.5', 'ten']) {
      const res = await page(`?limit=${bad}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('bad_limit');
    }
    const unknown = await page('?before=nope');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('bad_cursor');
    await json('DELETE', `/api/threads/${id}`);
  });

  it('the page shows the latest page and loads earlier ones on demand', async () => {
    const id = await threadWithMessages(250);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const errors = watchPageErrors(page);
      await page.goto(`${adapter.url}/#/t/${id}`);
      const shown = page.locator('article.msg');
      await expect.poll(() => shown.count()).toBe(100);
      await page.click('.load-earlier');
      await expect.poll(() => shown.count()).toBe(200);
      await page.click('.load-earlier');
      await expect.poll(() => shown.count()).toBe(250);
      expect(await page.locator('.load-earlier').count()).toBe(0);
      expect(await shown.first().textContent()).toContain('message 0');
      expect(await shown.last().textContent()).toContain('message 249');
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      await json('DELETE', `/api/threads/${id}`);
    }
  }, 60_000);

  it('answers 413 to a Connection: close upload refused part-way, not a reset', async () => {
    const id = (await json('POST', '/api/threads')).body.thread.id as string;
    try {
      for (let i = 0; i < 5; i++) {
        const res = await closingUpload(`${adapter.url}/api/threads/${id}/messages`, 4 * 1024 * 1024);
        expect(res).toMatchObject({ status: 413, sentBytes: 4 * 1024 * 1024 });
        expect(res.error).toBeUndefined();
      }
    } finally {
      await json('DELETE', `/api/threads/${id}`);
    }
  });

  it('stops reading a refused body past maxRefusedBodyBytes', async () => {
    const id = (await json('POST', '/api/threads')).body.thread.id as string;
    try {
      const sentBytes = await endlessBody(Number(new URL(adapter.url).port), `/api/threads/${id}/messages`);
      // The server closed the connection soon after the bound, not after the client's 256 MiB.
      expect(sentBytes).toBeGreaterThan(MAX_REFUSED_BODY_BYTES);
      expect(sentBytes).toBeLessThan(4 * MAX_REFUSED_BODY_BYTES);
    } finally {
      await json('DELETE', `/api/threads/${id}`);
    }
  });
});
