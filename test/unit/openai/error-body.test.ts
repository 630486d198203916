import { describe, expect, it } from 'vitest';
import { MAX_ERROR_BODY_BYTES, normalizingFetch, serverErrorOf } from '../../../adapters/openai/error-body.js';

describe('serverErrorOf: the reason in every error body shape', () => {
  it.each([
    [
      'OpenAI, llama.cpp, Ollama, Groq',
      {
        error: { message: 'bad thing', type: 'invalid_request_error', param: 'temperature', code: 'unsupported_value' },
      },
      { message: 'bad thing', param: 'temperature', code: 'unsupported_value' },
    ],
    ['LM Studio (a string)', { error: 'Model does not support images' }, { message: 'Model does not support images' }],
    [
      'vLLM, Mistral (object: error)',
      {
        object: 'error',
        message: "Unexpected role 'user' after role 'tool'",
        type: 'invalid_request_message_order',
        code: 3230,
      },
      { message: "Unexpected role 'user' after role 'tool'", code: '3230' },
    ],
    [
      'FastAPI validation',
      { detail: [{ loc: ['body', 'messages', 2], msg: 'field required' }] },
      { message: 'body.messages.2: field required' },
    ],
    [
      'Gemini (an array)',
      [{ error: { code: 400, message: 'Function call is missing a thought_signature', status: 'INVALID_ARGUMENT' } }],
      { message: 'Function call is missing a thought_signature', code: '400' },
    ],
    [
      'OpenRouter (metadata.raw)',
      {
        error: {
          code: 502,
          message: 'Provider returned error',
          metadata: { raw: 'upstream overloaded', provider_name: 'Fireworks' },
        },
      },
      { message: 'Provider returned error (Fireworks: upstream overloaded)' },
    ],
    [
      'Groq tool_use_failed',
      {
        error: {
          message: 'Failed to call a function.',
          code: 'tool_use_failed',
          failed_generation: '<function=run_code>{}</function>',
        },
      },
      { code: 'tool_use_failed', failedGeneration: '<function=run_code>{}</function>' },
    ],
  ])('%s', (_name, body, expected) => {
    expect(serverErrorOf(JSON.stringify(body))).toMatchObject(expected);
  });

  it('plain text and HTML pages are quoted as text; a long reason is cut', () => {
    expect(serverErrorOf('Bad Gateway')).toEqual({ message: 'Bad Gateway' });
    expect(serverErrorOf('<html><body><h1>502 Bad Gateway</h1></body></html>')?.message).toBe('502 Bad Gateway');
    expect(serverErrorOf('x'.repeat(5000))!.message.length).toBeLessThanOrEqual(600);
    expect(serverErrorOf('')).toBeUndefined();
  });
});

describe('normalizingFetch', () => {
  const respond = (body: string, status: number) => () => Promise.resolve(new Response(body, { status }));

  it('rewrites an error body of another shape into {"error": {...}} with the same status', async () => {
    const f = normalizingFetch(
      respond(JSON.stringify({ object: 'error', message: 'auto tool choice requires --enable-auto-tool-choice' }), 400),
    );
    const res = await f('http://127.0.0.1/v1/chat/completions');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { message: 'auto tool choice requires --enable-auto-tool-choice' } });
  });

  it('passes successful answers through untouched', async () => {
    const ok = new Response('{"choices":[]}', { status: 200 });
    expect(await normalizingFetch(() => Promise.resolve(ok))('http://127.0.0.1/')).toBe(ok);
  });

  it('reads at most MAX_ERROR_BODY_BYTES of an endless error body', async () => {
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 16_384;
        controller.enqueue(new Uint8Array(16_384).fill(0x61));
      },
    });
    const res = await normalizingFetch(() => Promise.resolve(new Response(endless, { status: 500 })))(
      'http://127.0.0.1/',
    );
    expect(sent).toBeLessThanOrEqual(MAX_ERROR_BODY_BYTES + 2 * 16_384);
    expect(((await res.json()) as { error: { message: string } }).error.message.length).toBeLessThanOrEqual(600);
  });
});
