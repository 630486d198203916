import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordingFetch } from '../../../adapters/openai/recording-fetch.js';
import { exchangeLineSchema, headerLineSchema } from '../../../adapters/openai/recording-format.js';
import { leaveOutFiles } from '../../../adapters/openai/recording-redact.js';
import { safeNamePart, TurnRecorder, type TurnIdentity } from '../../../adapters/openai/turn-recorder.js';
import { buildSystemPrompt } from '../../../src/interpreter/system-prompt.js';

const KEY = 'sk-recording-test-key-7f3a9c';
const SETTINGS = {
  model: 'm',
  stream: true,
  tools: 'auto' as const,
  images: true,
  maxRounds: 12,
  tokenBudget: 300_000,
  maxRetries: 1,
  verifyFigures: 'ask' as const,
  memoryTokens: 24_000,
};

let dir: string;
let turn: TurnIdentity | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rec-'));
  turn = { thread: 'web:local:web:t1', job: 'job-1' };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function recorder(o: { maxBytes?: number; keepFiles?: boolean } = {}): TurnRecorder {
  return new TurnRecorder({
    dir,
    maxBytes: o.maxBytes ?? 1024 * 1024,
    keepFiles: o.keepFiles ?? false,
    secrets: [KEY],
    endpoint: 'http://127.0.0.1:1/v1',
    settings: SETTINGS,
    turnOf: () => turn,
    logger: pino({ level: 'silent' }),
  });
}

/** A server that answers from a function of the request, the way fetch would. */
function server(answer: (body: string) => Response): typeof fetch {
  return async (_input, init) => answer(String(init?.body ?? ''));
}

function sse(events: string[]): Response {
  const chunks = events.map((e) => `data: ${e}\n\n`);
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      // Split mid-event, as TCP does.
      for (const chunk of chunks) {
        c.enqueue(new TextEncoder().encode(chunk.slice(0, 5)));
        c.enqueue(new TextEncoder().encode(chunk.slice(5)));
      }
      c.close();
    },
  });
  return new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

function files(): string[] {
  return readdirSync(dir).map((f) => join(dir, f));
}

function linesOf(path: string): Array<Record<string, unknown>> {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function post(f: typeof fetch, body: unknown, headers: Record<string, string> = {}): Promise<string> {
  const res = await f('http://127.0.0.1:1/v1/chat/completions?api-version=1&key=' + KEY, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'api-key': KEY, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return res.text();
}

describe('recordingFetch with TurnRecorder', () => {
  it('writes the request and the raw streamed response of a turn, the key nowhere', async () => {
    const f = recordingFetch(
      server(() => sse(['{"choices":[{"delta":{"content":"hi"}}]}', '[DONE]'])),
      { sink: recorder(), keepFiles: false, maxBodyChars: 1e6 },
    );
    const read = await post(f, { model: 'm', messages: [{ role: 'user', content: `my key is ${KEY}` }] });
    // The client reads the body unchanged.
    expect(read).toBe('data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n');
    const [path] = files();
    expect(path).toMatch(/\/\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z-web_local_web_t1-job-1\.jsonl$/);
    expect(statSync(path!).mode & 0o777).toBe(0o600);
    const text = readFileSync(path!, 'utf8');
    expect(text).not.toContain(KEY);
    const [header, request, response] = linesOf(path!);
    expect(headerLineSchema.parse(header).thread).toBe('web:local:web:t1');
    const req = exchangeLineSchema.parse(request);
    const res = exchangeLineSchema.parse(response);
    expect(req).toMatchObject({ type: 'request', seq: 1, method: 'POST' });
    if (req.type !== 'request' || res.type !== 'response') throw new Error('wrong line types');
    expect(req.url).toBe('/v1/chat/completions?api-version=1&key=[REDACTED]');
    expect(req.headers.authorization).toBe('[REDACTED]');
    expect(req.headers['api-key']).toBe('[REDACTED]');
    expect(JSON.stringify(req.body)).toContain('my key is [REDACTED]');
    expect(res).toMatchObject({ status: 200, end: 'complete' });
    expect(res.events).toEqual(['data: {"choices":[{"delta":{"content":"hi"}}]}', 'data: [DONE]']);
  });

  it('records a whole error body as the server sent it, and a network error', async () => {
    let fail = false;
    const f = recordingFetch(
      async () => {
        if (fail) throw new TypeError('fetch failed');
        return new Response('{"error":{"message":"temperature is not supported"}}', {
          status: 400,
          headers: { 'content-type': 'application/json', 'set-cookie': 'session=abc' },
        });
      },
      { sink: recorder(), keepFiles: false, maxBodyChars: 1e6 },
    );
    await post(f, { model: 'm', messages: [] });
    fail = true;
    await expect(post(f, { model: 'm', messages: [] })).rejects.toThrow('fetch failed');
    const lines = linesOf(files()[0]!);
    expect(lines[2]).toMatchObject({
      type: 'response',
      seq: 1,
      status: 400,
      body: '{"error":{"message":"temperature is not supported"}}',
      headers: { 'set-cookie': '[REDACTED]' },
    });
    expect(lines[4]).toEqual({ type: 'network_error', seq: 2, message: 'fetch failed' });
  });

  it('says a stream the client cancelled (a Stop) ended cancelled', async () => {
    const f = recordingFetch(
      async () =>
        new Response(
          new ReadableStream({
            pull(c) {
              c.enqueue(new TextEncoder().encode('data: {}\n\n'));
            },
          }),
          { headers: { 'content-type': 'text/event-stream' } },
        ),
      { sink: recorder(), keepFiles: false, maxBodyChars: 1e6 },
    );
    const res = await f('http://127.0.0.1:1/v1/chat/completions', { method: 'POST', body: '{}' });
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    expect(linesOf(files()[0]!)[2]).toMatchObject({ type: 'response', end: 'cancelled' });
  });

  it('records nothing outside a turn', async () => {
    turn = undefined;
    const f = recordingFetch(
      server(() => new Response('{}')),
      { sink: recorder(), keepFiles: false, maxBodyChars: 1e6 },
    );
    await post(f, { model: 'm', messages: [] });
    expect(files()).toEqual([]);
  });

  it('one file per job; a hostile thread name stays inside the directory', async () => {
    const sink = recorder();
    const f = recordingFetch(
      server(() => new Response('{}')),
      { sink, keepFiles: false, maxBodyChars: 1e6 },
    );
    turn = { thread: '../../etc/passwd:\u0000x', job: 'a' };
    await post(f, {});
    turn = { thread: null, job: 'b' };
    await post(f, {});
    turn = { thread: '../../etc/passwd:\u0000x', job: 'a' };
    await post(f, {});
    const names = readdirSync(dir).sort();
    expect(names).toHaveLength(2);
    expect(names.some((n) => n.endsWith('-etc_passwd_x-a.jsonl'))).toBe(true);
    expect(names.some((n) => n.endsWith('-no-thread-b.jsonl'))).toBe(true);
    expect(safeNamePart('...')).toBe('none');
  });

  it('stops at the cap with a truncation line, the file within it', async () => {
    const maxBytes = 4000;
    const f = recordingFetch(
      server(() => new Response('x'.repeat(700))),
      {
        sink: recorder({ maxBytes }),
        keepFiles: false,
        maxBodyChars: maxBytes,
      },
    );
    for (let i = 0; i < 10; i++) await post(f, { model: 'm', messages: [{ role: 'user', content: 'y'.repeat(300) }] });
    const path = files()[0]!;
    expect(statSync(path).size).toBeLessThanOrEqual(maxBytes);
    const lines = linesOf(path);
    const last = lines.at(-1)!;
    expect(last).toMatchObject({ type: 'truncated', maxBytes });
    expect(String(last.message)).toContain('THREADLAB_LLM_RECORD_MAX_MB');
    expect(lines.filter((l) => l.type === 'truncated')).toHaveLength(1);
    expect(lines.length).toBeLessThan(1 + 20);
  });
});

describe('file contents', () => {
  const environment = {
    imageVersion: 'test',
    python: '3.13',
    packages: { pandas: '2.2' },
    limits: { memoryMb: 1024, cpus: 1, timeoutMs: 60_000, dataMb: 512, maxFileMb: 100, network: false as const },
  };
  const prompt = buildSystemPrompt({
    environment,
    files: [
      { path: 'salaries.csv', bytes: 900, mime: 'text/csv', modifiedMs: 0 },
      { path: 'notes.txt', bytes: 10, mime: 'text/plain', modifiedMs: 0 },
    ],
    previews: [
      {
        path: 'salaries.csv',
        bytes: 900,
        kind: 'table',
        tables: [{ rows: 2, columns: [{ name: 'name', dtype: 'object' }], head: 'name  salary\nAlice-Secret  123456' }],
      },
    ],
    uploaded: ['salaries.csv'],
    trimmedEntries: 3,
  });
  const body = {
    messages: [
      { role: 'system', content: prompt },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'chart' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${'A'.repeat(500)}` } },
        ],
      },
    ],
  };

  it('leaves out previews and images, keeping the names, the rest of the prompt and a hash', () => {
    expect(prompt).toContain('Alice-Secret');
    const out = JSON.stringify(leaveOutFiles(body));
    expect(out).not.toContain('Alice-Secret');
    expect(out).not.toContain('AAAA');
    expect(out).toContain('- /mnt/data/salaries.csv (900 B, text/csv) [uploaded with this message]');
    expect(out).toMatch(/\[preview left out of the recording: \d+ characters, sha256 [0-9a-f]{16}\]/);
    expect(out).toContain('- /mnt/data/notes.txt');
    expect(out).toContain('Memory: 3 earlier entries');
    expect(out).toMatch(/data:image\/png;base64,\[left out of the recording: 500 characters, sha256 [0-9a-f]{16}\]/);
  });

  it('keeps them with THREADLAB_LLM_RECORD_FILES', async () => {
    const f = recordingFetch(
      server(() => new Response('{}')),
      {
        sink: recorder({ keepFiles: true }),
        keepFiles: true,
        maxBodyChars: 1e6,
      },
    );
    await post(f, body);
    const text = readFileSync(files()[0]!, 'utf8');
    expect(text).toContain('Alice-Secret');
    expect(JSON.parse(text.split('\n')[0]!).files).toBe(true);
  });
});
