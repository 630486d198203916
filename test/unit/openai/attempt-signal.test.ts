import { getEventListeners } from 'node:events';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { OpenAiLlmClient } from '../../../adapters/openai/openai-llm-client.js';

const completion = JSON.stringify({
  id: 'c1',
  object: 'chat.completion',
  created: 0,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
});

function client(fetchImpl: typeof fetch): OpenAiLlmClient {
  return new OpenAiLlmClient({
    baseUrl: 'http://127.0.0.1:9/v1',
    model: 'm',
    requestTimeoutMs: 5000,
    maxRetries: 0,
    stream: false,
    images: false,
    logger: pino({ level: 'silent' }),
    fetch: fetchImpl,
  });
}

describe("a turn's signal across its model requests", () => {
  it('keeps no listener on the turn signal after each request (the client never removes its own)', async () => {
    const llm = client(async () => new Response(completion, { headers: { 'content-type': 'application/json' } }));
    const turn = new AbortController();
    for (let i = 0; i < 15; i += 1) {
      const response = await llm.complete({
        messages: [{ role: 'user', content: 'hi' }],
        tools: [],
        signal: turn.signal,
      });
      expect(response.content).toBe('ok');
    }
    expect(getEventListeners(turn.signal, 'abort')).toHaveLength(0);
  });

  it('still cancels a request in flight when the turn is stopped', async () => {
    let seen: AbortSignal | undefined;
    const llm = client(
      (_url, init) =>
        new Promise<Response>((_resolve, reject) => {
          seen = init?.signal ?? undefined;
          seen?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
        }),
    );
    const turn = new AbortController();
    const pending = llm.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [], signal: turn.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    turn.abort();
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
    expect(seen?.aborted).toBe(true);
  });
});
