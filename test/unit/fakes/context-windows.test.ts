import { describe, expect, it } from 'vitest';
import { fakeSay } from '../../fakes/fake-openai-server.js';
import { promptTokens } from '../../fakes/model-servers/dialect.js';
import { llamaCpp, ollama, vllm } from '../../fakes/model-servers/index.js';
import { fake, post } from './server-client.js';

const long = (n: number) => [
  { role: 'system', content: 'You are Threadlab.' },
  ...Array.from({ length: n }, (_, i) => ({
    role: i % 2 ? 'assistant' : 'user',
    content: `message ${i} ${'x'.repeat(400)}`,
  })),
];

describe('the model-server fakes and their context windows', () => {
  it("vLLM lists max_model_len and refuses a prompt of that many tokens in vLLM's words", async () => {
    const server = await fake(vllm({ maxModelLen: 1024 }), [fakeSay('ok')]);
    const root = new URL(server.baseUrl).origin;
    const models = (await (await fetch(`${root}/v1/models`)).json()) as { data: Array<Record<string, unknown>> };
    expect(models.data[0]).toMatchObject({ id: 'Qwen/Qwen3-8B', object: 'model', max_model_len: 1024 });
    const body = { model: 'Qwen/Qwen3-8B', messages: long(12) };
    const refused = await post(server, body);
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      error: {
        message: `This model's maximum context length is 1024 tokens. However, your request has ${promptTokens(body)} input tokens. Please reduce the length of the input messages.`,
        type: 'BadRequestError',
        param: null,
        code: 400,
      },
    });
    expect((await post(server, { model: 'Qwen/Qwen3-8B', messages: long(2) })).status).toBe(200);
  });

  it('llama.cpp states n_ctx in /props and refuses with exceed_context_size_error and both counts', async () => {
    const server = await fake(llamaCpp({ nCtx: 1024 }));
    const root = new URL(server.baseUrl).origin;
    const props = (await (await fetch(`${root}/props`)).json()) as Record<string, unknown>;
    expect(props.default_generation_settings).toMatchObject({ n_ctx: 1024 });
    const body = { model: 'qwen3-8b', messages: long(12) };
    const refused = await post(server, body);
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      error: {
        code: 400,
        message: `request (${promptTokens(body)} tokens) exceeds the available context size (1024 tokens)`,
        type: 'exceed_context_size_error',
        n_prompt_tokens: promptTokens(body),
        n_ctx: 1024,
      },
    });
  });

  it('Ollama drops the oldest messages silently, keeping system messages and the latest one', async () => {
    const server = await fake(ollama({ numCtx: 1024 }), [fakeSay('ok')]);
    const root = new URL(server.baseUrl).origin;
    const ps = (await (await fetch(`${root}/api/ps`)).json()) as { models: Array<Record<string, unknown>> };
    expect(ps.models[0]).toMatchObject({ name: 'qwen3:8b', context_length: 1024 });
    const shown = await fetch(`${root}/api/show`, { method: 'POST', body: JSON.stringify({ model: 'qwen3:8b' }) });
    expect(await shown.json()).toMatchObject({ model_info: { 'qwen3.context_length': 40960 } });

    const messages = long(12);
    const answer = await post(server, { model: 'qwen3:8b', messages });
    expect(answer.status).toBe(200);
    const seen = server.requests[0]!.seen!;
    expect(promptTokens(seen)).toBeLessThanOrEqual(1024);
    expect(seen.messages[0]).toEqual(messages[0]);
    expect(seen.messages.at(-1)).toEqual(messages.at(-1));
    expect(seen.messages.length).toBeLessThan(messages.length);
    // The newest messages are the ones kept.
    expect(seen.messages.slice(1)).toEqual(messages.slice(messages.length - seen.messages.length + 1));
    expect((answer.json as { usage: { prompt_tokens: number } }).usage.prompt_tokens).toBe(promptTokens(seen));
  });
});
