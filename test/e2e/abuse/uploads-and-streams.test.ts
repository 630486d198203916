import { request, type ClientRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AbuseBot, AUTH, multipartChunks, repeated, streamRequest } from './abuse-bot.js';

const MiB = 1024 * 1024;

/** Opens an event stream and resolves once its headers arrived, with the status and a way to close it. */
function openStream(url: string): Promise<{ status: number; req: ClientRequest }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: AUTH, agent: false });
    req.on('response', (res) => {
      res.on('data', () => undefined);
      res.on('error', () => undefined);
      resolve({ status: res.statusCode ?? 0, req });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('uploads, event streams and connections against the shipped web chat', () => {
  const bot = new AbuseBot();

  beforeAll(() => bot.start());
  afterAll(() => bot.cleanup());
  afterEach(async () => {
    expect(await bot.health()).toBeLessThan(1000);
  });

  const newThread = async () => (await bot.json('POST', '/api/threads', {})).body.thread.id as string;
  const upload = (id: string, bytes: number) =>
    streamRequest(`${bot.url}/api/threads/${id}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=upl0ad' },
      chunks: multipartChunks('upl0ad', [{ name: 'file', filename: 'big.bin', bytes: () => repeated(bytes) }]),
    });

  it('streams a 100 MB upload to disk: RSS grows by less than 64 MB', async () => {
    const id = await newThread();
    const before = await bot.memory();
    const { result, maxRssBytes } = await bot.sampleRss(() => upload(id, 100 * 1000 * 1000));
    expect(result.status).toBe(202);
    const growth = maxRssBytes - before.rssBytes;
    console.log(
      `100 MB upload: RSS ${(before.rssBytes / MiB).toFixed(0)} MiB before, peak during the upload ${(maxRssBytes / MiB).toFixed(0)} MiB, growth ${(growth / MiB).toFixed(1)} MiB`,
    );
    expect(growth).toBeLessThan(64 * MiB);
    expect(JSON.parse(result.body).message.attachments[0]).toMatchObject({ name: 'big.bin', bytes: 100 * 1000 * 1000 });
    // Its job copies the file into the thread's sandbox after the 202: the next test measures the data directory,
    // so this one ends when the upload was answered (the copy done).
    await expect
      .poll(
        async () =>
          ((await bot.json('GET', `/api/threads/${id}/messages`)).body.messages as { role: string }[]).some(
            (m) => m.role === 'bot',
          ),
        { timeout: 120_000, interval: 250 },
      )
      .toBe(true);
  });

  it('refuses an upload over THREADLAB_MAX_FILE_MB part-way, keeping none of it', async () => {
    const id = await newThread();
    const before = await bot.dataDirBytes();
    const res = await upload(id, 101 * MiB);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'file_too_large' } });
    // The part written is removed once the refusal is sent: vitest's default 1 s poll was short on a busy machine.
    await expect.poll(() => readdir(join(bot.dataDir, 'web', 'tmp')), { timeout: 10_000 }).toEqual([]);
    expect(await bot.dataDirBytes()).toBeLessThan(before + MiB);
    expect((await bot.json('GET', `/api/threads/${id}/messages`)).body.messages).toEqual([]);
  });

  it('keeps /api/health under 1 s with 1,000 open event streams, and refuses streams beyond the caps', async () => {
    const threads = await Promise.all(Array.from({ length: 63 }, () => newThread()));
    const streams: ClientRequest[] = [];
    try {
      for (let i = 0; i < 1000; i += 50) {
        const batch = await Promise.all(
          Array.from({ length: 50 }, (_, j) => openStream(`${bot.url}/api/threads/${threads[(i + j) % 63]}/events`)),
        );
        expect(batch.every((s) => s.status === 200)).toBe(true);
        streams.push(...batch.map((s) => s.req));
      }
      const latencies: number[] = [];
      for (let i = 0; i < 10; i++) latencies.push(await bot.health());
      console.log(
        `health with 1,000 open event streams: max ${Math.max(...latencies).toFixed(1)} ms, median ${latencies.sort((a, b) => a - b)[5]!.toFixed(1)} ms`,
      );
      expect(Math.max(...latencies)).toBeLessThan(1000);
      const beyond = await openStream(`${bot.url}/api/threads/${threads[0]}/events`);
      beyond.req.destroy();
      expect([429, 503]).toContain(beyond.status);
      const total = await openStream(`${bot.url}/api/threads/${await newThread()}/events`);
      total.req.destroy();
      expect(total.status).toBe(503);
    } finally {
      for (const req of streams) req.destroy();
    }
    // closed streams are counted out again
    await expect
      .poll(async () => {
        const s = await openStream(`${bot.url}/api/threads/${threads[1]}/events`);
        s.req.destroy();
        return s.status;
      })
      .toBe(200);
  });

  it('caps the streams of one thread with 429', async () => {
    const id = await newThread();
    const open = await Promise.all(Array.from({ length: 16 }, () => openStream(`${bot.url}/api/threads/${id}/events`)));
    try {
      expect(open.every((s) => s.status === 200)).toBe(true);
      const more = await openStream(`${bot.url}/api/threads/${id}/events`);
      more.req.destroy();
      expect(more.status).toBe(429);
    } finally {
      for (const s of open) s.req.destroy();
    }
  });

  it('closes connections that never finish their headers (slowloris) after the headers timeout', async () => {
    const sockets: Socket[] = [];
    const closed: Promise<number>[] = [];
    const started = Date.now();
    for (let i = 0; i < 50; i++) {
      const socket = connect(bot.port, '127.0.0.1', () => socket.write('GET /api/health HTTP/1.1\r\nHost: 127.0.0'));
      socket.on('error', () => undefined);
      socket.on('data', () => undefined);
      closed.push(new Promise((resolve) => socket.on('close', () => resolve(Date.now() - started))));
      sockets.push(socket);
    }
    try {
      const times = await Promise.all(closed);
      console.log(`slow headers: 50 connections closed by the server after ${Math.max(...times)} ms at most`);
      expect(Math.max(...times)).toBeLessThan(15_000);
    } finally {
      for (const s of sockets) s.destroy();
    }
  }, 30_000);
});
