import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AbuseBot, AUTH, multipartChunks, repeated, streamRequest } from './abuse-bot.js';

// Each attack is replayed against `threadlab start` itself; after each, the process is alive,
// /api/health answers within 1 s, and memory and disk stay within the bounds stated in the test.
const MiB = 1024 * 1024;

describe('hostile requests against the shipped web chat', () => {
  const bot = new AbuseBot();

  beforeAll(() => bot.start({ THREADLAB_USER_MAX_PER_MINUTE: '4' }));
  afterAll(() => bot.cleanup());
  afterEach(async () => {
    expect(await bot.health()).toBeLessThan(1000);
  });

  const newThread = async () => (await bot.json('POST', '/api/threads', {})).body.thread.id as string;

  it('answers malformed paths and cookies with 4xx instead of dying', async () => {
    const get = (target: string, headers = '') =>
      bot.raw(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}Connection: close\r\n\r\n`);
    const auth = `Authorization: ${AUTH.authorization}\r\n`;
    expect(await get('//%zz')).toBe(401);
    expect(await get('//%zz', auth)).toBe(404);
    expect(await get('//[')).toBe(401);
    expect(await get('//[', auth)).toBe(404);
    expect(await get('/', 'Cookie: threadlab_token=%E0%A4%A\r\n')).toBe(401);
    expect(await get('/api/threads/%E0%A4%A', auth)).toBe(404);
    expect(await get('*')).toBe(400);
    expect(bot.errorLines()).toEqual([]);
  });

  it('answers malformed JSON on POST /api/threads with 400 and no error log', async () => {
    const res = await bot.json('POST', '/api/threads', '{"title": nope');
    expect(res).toMatchObject({ status: 400, body: { error: { code: 'bad_json' } } });
    const deep = await bot.json('POST', '/api/threads', `{"title":${'['.repeat(100)}`);
    expect(deep).toMatchObject({ status: 400, body: { error: { code: 'json_too_deep' } } });
    expect(bot.errorLines()).toEqual([]);
  });

  it('refuses 25 MB of message text with 413 before storing it, again and again', async () => {
    const id = await newThread();
    const before = { memory: await bot.memory(), disk: await bot.dataDirBytes() };
    for (let i = 0; i < 8; i++) {
      const res = await streamRequest(`${bot.url}/api/threads/${id}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'multipart/form-data; boundary=b0undary' },
        chunks: multipartChunks('b0undary', [{ name: 'text', bytes: () => repeated(25 * MiB) }]),
      });
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'text_too_large' } });
    }
    expect((await bot.json('GET', `/api/threads/${id}/messages`)).body.messages).toEqual([]);
    const after = { memory: await bot.memory(), disk: await bot.dataDirBytes() };
    const growth = after.memory.peakBytes - before.memory.peakBytes;
    console.log(
      `8 × 25 MB texts refused: peak RSS grew ${(growth / MiB).toFixed(1)} MiB, data dir ${after.disk - before.disk} bytes`,
    );
    expect(growth).toBeLessThan(64 * MiB);
    expect(after.disk - before.disk).toBeLessThan(MiB);
  });

  it('refuses a 140 MB deeply nested JSON body at once, and deep nesting within the JSON cap without parsing it', async () => {
    const id = await newThread();
    const before = await bot.memory();
    const started = performance.now();
    const declared = await streamRequest(`${bot.url}/api/threads/${id}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(140 * 1000 * 1000) },
      chunks: async function* () {
        yield* repeated(140 * 1000 * 1000, 0x5b);
      },
    });
    expect(declared.status).toBe(413);
    // without a declared length, the body is cut off once it passes the JSON cap
    const chunked = await streamRequest(`${bot.url}/api/threads/${id}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      chunks: async function* () {
        yield* repeated(140 * 1000 * 1000, 0x5b);
      },
    });
    expect(chunked.status).toBe(413);
    const deep = await bot.json(
      'POST',
      `/api/threads/${id}/messages`,
      `${'['.repeat(1000 * 1000)}${']'.repeat(40_000)}`,
    );
    expect(deep).toMatchObject({ status: 400, body: { error: { code: 'json_too_deep' } } });
    const elapsedMs = performance.now() - started;
    const growth = (await bot.memory()).peakBytes - before.peakBytes;
    console.log(
      `140 MB nested JSON (declared and chunked) and 1 MB deep: ${elapsedMs.toFixed(0)} ms, peak RSS grew ${(growth / MiB).toFixed(1)} MiB`,
    );
    expect(elapsedMs).toBeLessThan(5000);
    expect(growth).toBeLessThan(64 * MiB);
  });

  it('stores an upload with a CRLF in its declared MIME type as application/octet-stream', async () => {
    const id = await newThread();
    const posted = await bot.json('POST', `/api/threads/${id}/messages`, {
      text: '```python\nprint(1)\n```',
      attachments: [
        { name: 'data.bin', mime: 'text/html\r\nx-injected: 1', dataBase64: Buffer.from('bytes').toString('base64') },
      ],
    });
    expect(posted.status).toBe(202);
    const attachment = posted.body.message.attachments[0];
    expect(attachment.mime).toBe('application/octet-stream');
    const file = await fetch(`${bot.url}${attachment.url}`, { headers: AUTH });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/octet-stream');
    expect(file.headers.get('x-injected')).toBeNull();
    expect(await file.text()).toBe('bytes');
  });

  it('does not store a message a rate limit refused, and says so with 429', async () => {
    const id = await newThread();
    const answers: { status: number; text: string }[] = [];
    for (let i = 0; i < 8 && !answers.some((a) => a.status === 429); i++) {
      const text = `\`\`\`python\nprint(${i})\n\`\`\``;
      answers.push({ status: (await bot.json('POST', `/api/threads/${id}/messages`, { text })).status, text });
    }
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(1);
    const stored = (await bot.json('GET', `/api/threads/${id}/messages`)).body.messages as {
      role: string;
      text: string;
    }[];
    const userTexts = stored.filter((m) => m.role === 'user').map((m) => m.text);
    expect(userTexts).toEqual(answers.filter((a) => a.status === 202).map((a) => a.text));
    expect(stored.some((m) => m.text.includes(refused[0]!.text))).toBe(false);
  });
});
