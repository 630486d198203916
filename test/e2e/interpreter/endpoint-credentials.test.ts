import { Writable } from 'node:stream';
import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpenAiLlmClient } from '../../../adapters/openai/openai-llm-client.js';
import { createLogger } from '../../../src/logger.js';
import { loadConfig } from '../../../src/config/index.js';
import { FakeOpenAiServer, fakeSay } from '../../fakes/fake-openai-server.js';

const PASSWORD = 'pr0xy-pa55word';
const KEY = 'query-key-0123456789';

function capturedLogger(secrets: string[]) {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger({ secrets, destination, level: 'trace' }) };
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('OPENAI_BASE_URL with credentials, through the real openai client', () => {
  let server: FakeOpenAiServer;
  beforeEach(async () => {
    server = new FakeOpenAiServer();
    await server.start();
  });
  afterEach(async () => server.stop());

  it('sends user info as basic auth and the query with every request', async () => {
    server.push(fakeSay('hello'));
    const baseUrl = server.baseUrl.replace('http://', `http://proxyuser:${PASSWORD}@`) + `?key=${KEY}`;
    const { logger } = capturedLogger([]);
    const client = new OpenAiLlmClient({
      baseUrl,
      model: 'm',
      requestTimeoutMs: 5000,
      maxRetries: 0,
      stream: false,
      images: false,
      logger,
    });
    const response = await client.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] });
    expect(response.content).toBe('hello');
    const request = server.requests[0]!;
    expect(request.url).toBe(`/v1/chat/completions?key=${KEY}`);
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from(`proxyuser:${PASSWORD}`).toString('base64')}`);
  });

  it('never shows the credentials in the error users see or in the log', async () => {
    const port = await closedPort();
    const raw = `http://proxyuser:${PASSWORD}@127.0.0.1:${port}/v1?key=${KEY}`;
    const config = loadConfig({ OPENAI_BASE_URL: raw });
    const { lines, logger } = capturedLogger(config.secrets);
    const client = new OpenAiLlmClient({
      baseUrl: raw,
      model: 'm',
      requestTimeoutMs: 2000,
      maxRetries: 0,
      stream: true,
      images: false,
      logger,
    });
    const error = await client
      .complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] })
      .catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toContain(`127.0.0.1:${port}`);
    expect(message).not.toContain(PASSWORD);
    expect(message).not.toContain(KEY);
    logger.error({ err: error, baseUrl: raw }, 'model call failed');
    const logged = lines.join('');
    expect(logged).toContain('model call failed');
    expect(logged).not.toContain(PASSWORD);
    expect(logged).not.toContain(KEY);
  });
});

describe('an API error that echoes the request URL', () => {
  it('is shown without the query key', async () => {
    const server = new FakeOpenAiServer({
      fallback: {
        kind: 'error',
        status: 400,
        body: { error: { message: `bad request to /v1/chat/completions?key=${KEY}` } },
      },
    });
    await server.start();
    try {
      const { logger } = capturedLogger([]);
      const client = new OpenAiLlmClient({
        baseUrl: `${server.baseUrl}?key=${KEY}`,
        model: 'm',
        requestTimeoutMs: 2000,
        maxRetries: 0,
        stream: false,
        images: false,
        logger,
      });
      const error = (await client
        .complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] })
        .catch((e: Error) => e)) as Error;
      expect(error.message).toContain('400');
      expect(error.message).not.toContain(KEY);
    } finally {
      await server.stop();
    }
  });
});
