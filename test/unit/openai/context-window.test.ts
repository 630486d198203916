import OpenAI from 'openai';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { contextRefusalOf } from '../../../adapters/openai/context-refusal.js';
import { OLLAMA_DEFAULT_NUM_CTX, probeContextWindow } from '../../../adapters/openai/context-window.js';
import { normalizingFetch, serverErrorOf } from '../../../adapters/openai/error-body.js';
import { mapOpenAiError } from '../../../adapters/openai/map-error.js';

const logger = pino({ level: 'silent' });
const BASE = 'http://127.0.0.1:9/v1';

type Route = (init: RequestInit | undefined) => Response | Promise<Response>;

/** A fetch that answers from a table of `METHOD /path` routes (404 for the rest) and records what was asked. */
function routes(table: Record<string, Route>): typeof fetch & { asked: string[]; headers: Headers[] } {
  const asked: string[] = [];
  const headers: Headers[] = [];
  const fn = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const key = `${init?.method ?? 'GET'} ${url.pathname}`;
    asked.push(key);
    headers.push(new Headers(init?.headers));
    const route = table[key];
    return route ? route(init) : new Response('404 page not found', { status: 404 });
  }) as typeof fetch & { asked: string[]; headers: Headers[] };
  fn.asked = asked;
  fn.headers = headers;
  return fn;
}

const json = (body: unknown): Response => Response.json(body);

describe('contextRefusalOf', () => {
  it.each([
    [
      'vLLM (before 0.10)',
      {
        message:
          "This model's maximum context length is 16384 tokens. However, you requested 122946 tokens (112946 in the messages, 10000 in the completion). Please reduce the length of the messages or completion.",
      },
      { windowTokens: 16384, promptTokens: 112946 },
    ],
    [
      'vLLM',
      {
        message:
          "This model's maximum context length is 4096 tokens. However, your request has 5000 input tokens. Please reduce the length of the input messages.",
      },
      { windowTokens: 4096, promptTokens: 5000 },
    ],
    [
      'OpenAI',
      {
        message:
          "This model's maximum context length is 8192 tokens. However, your messages resulted in 9,100 tokens. Please reduce the length of the messages.",
        code: 'context_length_exceeded',
      },
      { windowTokens: 8192, promptTokens: 9100 },
    ],
    [
      'llama.cpp',
      {
        message: 'request (4476 tokens) exceeds the available context size (4096 tokens)',
        type: 'exceed_context_size_error',
        contextTokens: 4096,
        promptTokens: 4476,
      },
      { windowTokens: 4096, promptTokens: 4476 },
    ],
    ['llama.cpp (older builds)', { message: 'the request exceeds the available context size, try increasing it' }, {}],
    [
      'Mistral',
      {
        message:
          'Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length',
      },
      { windowTokens: 32768, promptTokens: 40000 },
    ],
    [
      'Groq',
      { message: 'Please reduce the length of the messages or completion.', code: 'context_length_exceeded' },
      {},
    ],
  ])('reads %s', (_server, error, expected) => {
    expect(contextRefusalOf(error)).toEqual(expected);
  });

  it('is undefined for other refusals', () => {
    expect(contextRefusalOf({ message: 'temperature is not supported with this model' })).toBeUndefined();
    expect(contextRefusalOf({ message: 'The model `x` does not exist.' })).toBeUndefined();
  });

  it("keeps llama.cpp's n_ctx and n_prompt_tokens through the normalised error body", async () => {
    const body = {
      error: {
        code: 400,
        message: 'request (4476 tokens) exceeds the available context size (4096 tokens)',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 4476,
        n_ctx: 4096,
      },
    };
    const fetched = await normalizingFetch(async () => Response.json(body, { status: 400 }))('http://x', {});
    const read = serverErrorOf(await fetched.text())!;
    expect(read).toMatchObject({ contextTokens: 4096, promptTokens: 4476, type: 'exceed_context_size_error' });
  });

  it('maps a context refusal to llm_context_exceeded with the sizes and the settings to change', () => {
    const err = mapOpenAiError(
      OpenAI.APIError.generate(
        400,
        {
          error: {
            message: "This model's maximum context length is 4096 tokens. However, your request has 5000 input tokens.",
          },
        },
        undefined,
        new Headers(),
      ),
      { model: 'm', baseUrl: BASE, requestTimeoutMs: 1000, attempts: 1 },
    );
    expect(err).toMatchObject({ code: 'llm_context_exceeded', isRetryable: false, isPolicy: true });
    expect(err.details).toMatchObject({ windowTokens: 4096, promptTokens: 5000 });
    expect(err.message).toContain('THREADLAB_LLM_CONTEXT_TOKENS');
    expect(err.message).toContain('--max-model-len');
  });
});

describe('probeContextWindow', () => {
  it("reads vLLM's max_model_len for the served model, sending the key", async () => {
    const fetch = routes({
      'GET /v1/models': () =>
        json({
          object: 'list',
          data: [
            { id: 'other', object: 'model', max_model_len: 131072 },
            { id: 'Qwen/Qwen3-8B', object: 'model', owned_by: 'vllm', max_model_len: 4096 },
          ],
        }),
    });
    const stated = await probeContextWindow({
      baseUrl: BASE,
      model: 'Qwen/Qwen3-8B',
      headers: { authorization: 'Bearer k' },
      logger,
      fetch,
    });
    expect(stated).toEqual({ tokens: 4096, source: '/v1/models max_model_len' });
    expect(fetch.asked).toEqual(['GET /v1/models']);
    expect(fetch.headers[0]!.get('authorization')).toBe('Bearer k');
  });

  it("reads llama.cpp's per-slot n_ctx from /props at the server's root", async () => {
    const fetch = routes({
      'GET /v1/models': () => json({ object: 'list', data: [{ id: 'qwen3-8b', object: 'model', meta: {} }] }),
      'GET /props': () => json({ default_generation_settings: { n_ctx: 4096 }, total_slots: 1 }),
    });
    expect(await probeContextWindow({ baseUrl: BASE, model: 'qwen3-8b', logger, fetch })).toEqual({
      tokens: 4096,
      source: '/props n_ctx',
    });
  });

  it("takes Ollama's loaded context length, else num_ctx, else its default under the model's own", async () => {
    const show = (parameters: string) => () =>
      json({
        parameters,
        model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 40960 },
      });
    const loaded = routes({
      'POST /api/show': show('temperature 0.6'),
      'GET /api/ps': () => json({ models: [{ name: 'qwen3:8b', model: 'qwen3:8b', context_length: 8192 }] }),
    });
    expect(await probeContextWindow({ baseUrl: BASE, model: 'qwen3:8b', logger, fetch: loaded })).toEqual({
      tokens: 8192,
      source: '/api/ps context_length',
    });
    const numCtx = routes({ 'POST /api/show': show('num_ctx                        16384\ntemperature 0.6') });
    expect((await probeContextWindow({ baseUrl: BASE, model: 'qwen3:8b', logger, fetch: numCtx }))?.tokens).toBe(16384);
    const plain = routes({ 'POST /api/show': show('temperature 0.6') });
    expect(await probeContextWindow({ baseUrl: BASE, model: 'qwen3:8b', logger, fetch: plain })).toEqual({
      tokens: OLLAMA_DEFAULT_NUM_CTX,
      source: "Ollama's default num_ctx",
    });
    expect(plain.asked).toEqual(['GET /v1/models', 'GET /props', 'POST /api/show', 'GET /api/ps']);
  });

  it('is undefined, without throwing, for a server that states nothing', async () => {
    const fetch = routes({ 'GET /v1/models': () => json({ object: 'list', data: [{ id: 'gpt-4.1-mini' }] }) });
    expect(await probeContextWindow({ baseUrl: BASE, model: 'gpt-4.1-mini', logger, fetch })).toBeUndefined();
    const failing = (async () => {
      throw new TypeError('fetch failed');
    }) as typeof globalThis.fetch;
    expect(await probeContextWindow({ baseUrl: BASE, model: 'm', logger, fetch: failing })).toBeUndefined();
  });

  it('gives up on a probe at its time limit and moves on', async () => {
    const fetch = routes({
      'GET /v1/models': (init) =>
        new Promise<Response>((_, reject) =>
          init?.signal?.addEventListener('abort', () => reject(init.signal!.reason as Error)),
        ),
      'GET /props': () => json({ default_generation_settings: { n_ctx: 2048 } }),
    });
    const started = Date.now();
    const stated = await probeContextWindow({ baseUrl: BASE, model: 'm', logger, fetch, timeoutMs: 100 });
    expect(stated?.tokens).toBe(2048);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('reads no answer past its size cap', async () => {
    const big = { data: [{ id: 'm', max_model_len: 4096, padding: 'x'.repeat(5000) }] };
    const fetch = routes({ 'GET /v1/models': () => json(big) });
    expect(await probeContextWindow({ baseUrl: BASE, model: 'm', logger, fetch, maxBytes: 4096 })).toBeUndefined();
    expect((await probeContextWindow({ baseUrl: BASE, model: 'm', logger, fetch, maxBytes: 10_000 }))?.tokens).toBe(
      4096,
    );
  });
});
