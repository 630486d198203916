import { describe, expect, it } from 'vitest';
import { fakeRunCode, fakeSay } from '../../fakes/fake-openai-server.js';
import { llamaCpp } from '../../fakes/model-servers/llama-cpp.js';
import { lmStudio } from '../../fakes/model-servers/lm-studio.js';
import { ollama } from '../../fakes/model-servers/ollama.js';
import { vllm } from '../../fakes/model-servers/vllm.js';
import { ask, choiceOf, chunks, fake, joined, messageOf, post, RUN_CODE_ARGS } from './server-client.js';

const think = { kind: 'message', reasoning: 'The user wants 6*7.', content: '42' } as const;

describe('FakeOpenAiServer with a dialect', () => {
  it('lives under the base path and answers other paths the way the server does', async () => {
    const server = await fake(ollama(), [fakeSay('hi')]);
    expect(server.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const elsewhere = await post(server, ask('qwen3:8b'), { path: '/../v2/chat/completions' });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.json).toMatchObject({ error: { type: 'not_found_error' } });
  });

  it('keeps the scripted step when it refuses, and records the refusal', async () => {
    const server = await fake(ollama({ tools: false }), [fakeSay('without tools')]);
    expect((await post(server, ask('llama3'))).status).toBe(400);
    expect(server.remaining).toBe(1);
    expect(server.requests[0]!.refusal?.status).toBe(400);
    const plain = await post(server, { model: 'llama3', messages: [{ role: 'user', content: 'hi' }] });
    expect(messageOf(plain).content).toBe('without tools');
  });

  it("writes a scripted error without a body in the server's error shape", async () => {
    const server = await fake(vllm({ legacy: true }), [{ kind: 'error', status: 500, message: 'engine died' }]);
    const answer = await post(server, ask('Qwen/Qwen3-8B'));
    expect(answer.status).toBe(500);
    expect(answer.json).toEqual({
      object: 'error',
      message: 'engine died',
      type: 'InternalServerError',
      param: null,
      code: 500,
    });
  });
});

describe('Ollama', () => {
  it('refuses tools for a model without tool support, naming it in full', async () => {
    const server = await fake(ollama({ tools: false }));
    const answer = await post(server, ask('llama3'));
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({
      error: {
        message: 'registry.ollama.ai/library/llama3:latest does not support tools',
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    });
  });

  it('answers 404 for a model that was not pulled', async () => {
    const server = await fake(ollama({ pulled: false }));
    const answer = await post(server, ask('qwen3:8b'));
    expect(answer.status).toBe(404);
    expect(answer.json).toMatchObject({
      error: { message: 'model "qwen3:8b" not found, try pulling it first', type: 'not_found_error' },
    });
  });

  it('sends reasoning in `reasoning`, content "" beside tool calls and whole tool calls in one chunk', async () => {
    const server = await fake(ollama(), [
      think,
      { kind: 'message', reasoning: 'Run it.', toolCalls: [{ name: 'run_code', arguments: RUN_CODE_ARGS }] },
      { kind: 'message', reasoning: 'Run it.', toolCalls: [{ name: 'run_code', arguments: RUN_CODE_ARGS }] },
    ]);
    const whole = messageOf(await post(server, ask('qwen3:8b')));
    expect(whole).toEqual({ role: 'assistant', content: '42', reasoning: 'The user wants 6*7.' });
    const calling = await post(server, ask('qwen3:8b'));
    expect(messageOf(calling).content).toBe('');
    expect((calling.json as { system_fingerprint: string }).system_fingerprint).toBe('fp_ollama');
    const streamed = await post(server, ask('qwen3:8b', { stream: true }));
    expect(joined(streamed.text, 'reasoning')).toBe('Run it.');
    const callChunks = chunks(streamed.text).filter((c) => choiceOf(c)?.delta?.tool_calls);
    expect(callChunks).toHaveLength(1);
    const [call] = choiceOf(callChunks[0]!)!.delta!.tool_calls as Array<{
      id: string;
      function: { arguments: string };
    }>;
    expect(call!.id).toMatch(/^call_[a-z0-9]{8}$/);
    expect(call!.function.arguments).toBe(RUN_CODE_ARGS);
    expect(chunks(streamed.text).some((c) => 'usage' in c)).toBe(false);
  });
});

describe('vLLM', () => {
  it('refuses tools without --enable-auto-tool-choice unless tool_choice is not auto', async () => {
    const server = await fake(vllm({ autoToolChoice: false }), [fakeSay('no tools used')]);
    const refused = await post(server, ask('Qwen/Qwen3-8B'));
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      error: {
        message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
        type: 'BadRequestError',
        param: null,
        code: 400,
      },
    });
    expect((await post(server, ask('Qwen/Qwen3-8B', { tool_choice: 'none' }))).status).toBe(200);
  });

  it('answers flat errors and `reasoning_content` before 0.10.1, nested errors and `reasoning` after', async () => {
    const legacy = await fake(vllm({ legacy: true, autoToolChoice: false }), [think]);
    expect((await post(legacy, ask('Qwen/Qwen3-8B'))).json).toMatchObject({ object: 'error', code: 400 });
    const old = await post(legacy, { model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'q' }] });
    expect(messageOf(old).reasoning_content).toBe('The user wants 6*7.');
    const current = await fake(vllm(), [think]);
    const now = await post(current, { model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'q' }] });
    expect(messageOf(now).reasoning).toBe('The user wants 6*7.');
    expect(messageOf(now)).not.toHaveProperty('reasoning_content');
  });

  it('returns tool calls as <tool_call> text with finish_reason stop when the parser does not match', async () => {
    const server = await fake(vllm({ parserMismatch: true }), [fakeRunCode('print(6*7)')]);
    const answer = await post(server, ask('Qwen/Qwen3-8B', { stream: true }));
    const text = joined(answer.text, 'content');
    expect(text).toBe(
      '<tool_call>\n{"name":"run_code","arguments":{"language":"python","code":"print(6*7)"}}\n</tool_call>',
    );
    expect(chunks(answer.text).some((c) => choiceOf(c)?.delta?.tool_calls)).toBe(false);
    expect(chunks(answer.text).map((c) => choiceOf(c)?.finish_reason)).toContain('stop');
  });

  it('returns a tool call with unparsable arguments as text even when the parser matches', async () => {
    const server = await fake(vllm(), [
      { kind: 'message', toolCalls: [{ name: 'run_code', arguments: '{"code": "print(1)' }] },
    ]);
    const answer = await post(server, ask('Qwen/Qwen3-8B'));
    expect(messageOf(answer).content).toContain('<tool_call>');
    expect(messageOf(answer)).not.toHaveProperty('tool_calls');
    expect((answer.json as { choices: Array<{ finish_reason: string }> }).choices[0]!.finish_reason).toBe('stop');
  });

  it('uses chatcmpl-tool ids, checks the served model name and the API key', async () => {
    const server = await fake(vllm({ apiKey: 'k' }), [fakeRunCode('print(1)')]);
    const bearer = { authorization: 'Bearer k' };
    expect((await post(server, ask('Qwen/Qwen3-8B'))).json).toEqual({ error: 'Unauthorized' });
    const wrongModel = await post(server, ask('gpt-4o'), { headers: bearer });
    expect(wrongModel.status).toBe(404);
    expect(wrongModel.json).toMatchObject({
      error: { message: 'The model `gpt-4o` does not exist.', type: 'NotFoundError' },
    });
    const answer = await post(server, ask('Qwen/Qwen3-8B'), { headers: bearer });
    const calls = messageOf(answer).tool_calls as Array<{ id: string }>;
    expect(calls[0]!.id).toMatch(/^chatcmpl-tool-[0-9a-f]{32}$/);
  });

  it('leaves <think> in the content without a reasoning parser', async () => {
    const server = await fake(vllm({ reasoningParser: false }), [think]);
    const answer = await post(server, { model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'q' }] });
    expect(messageOf(answer).content).toBe('<think>\nThe user wants 6*7.\n</think>\n\n42');
  });
});

describe("llama.cpp's llama-server", () => {
  it('refuses tools without --jinja with a 500 server_error', async () => {
    const server = await fake(llamaCpp({ jinja: false }));
    const answer = await post(server, ask('any'));
    expect(answer.status).toBe(500);
    expect(answer.json).toEqual({
      error: { code: 500, message: 'tools param requires --jinja flag', type: 'server_error' },
    });
  });

  it('puts reasoning in reasoning_content, in <think> with reasoning_format none, in both with deepseek-legacy', async () => {
    const server = await fake(llamaCpp(), [think, think]);
    const plain = { model: 'any', messages: [{ role: 'user', content: 'q' }] };
    expect(messageOf(await post(server, plain)).reasoning_content).toBe('The user wants 6*7.');
    const none = messageOf(await post(server, { ...plain, reasoning_format: 'none' }));
    expect(none.content).toBe('<think>\nThe user wants 6*7.\n</think>\n\n42');
    expect(none).not.toHaveProperty('reasoning_content');
    const legacy = await fake(llamaCpp({ reasoningFormat: 'deepseek-legacy' }), [think]);
    const both = messageOf(await post(legacy, plain));
    expect(both.content).toContain('<think>');
    expect(both.reasoning_content).toBe('The user wants 6*7.');
  });

  it('refuses tools with stream on builds from before streamed tool calls', async () => {
    const server = await fake(llamaCpp({ toolsWithStream: false }), [fakeRunCode('print(1)')]);
    const streamed = await post(server, ask('any', { stream: true }));
    expect(streamed.status).toBe(500);
    expect(streamed.json).toMatchObject({ error: { message: 'Cannot use tools with stream' } });
    expect((await post(server, ask('any'))).status).toBe(200);
  });

  it('uses 32-character tool call ids', async () => {
    const server = await fake(llamaCpp(), [fakeRunCode('print(1)')]);
    const calls = messageOf(await post(server, ask('any'))).tool_calls as Array<{ id: string }>;
    expect(calls[0]!.id).toMatch(/^[A-Za-z0-9]{32}$/);
  });
});

describe('LM Studio', () => {
  it('answers errors as a bare string', async () => {
    const server = await fake(lmStudio());
    const answer = await post(server, ask('m', { response_format: { type: 'json_object' } }));
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: "'response_format.type' must be 'json_schema' or 'text'" });
  });

  it('requires the API token when authentication is on', async () => {
    const server = await fake(lmStudio({ token: 't' }), [fakeSay('ok')]);
    const missing = await post(server, ask('m'));
    expect(missing.status).toBe(401);
    expect(missing.json).toMatchObject({ error: { type: 'invalid_request', code: 'invalid_api_key' } });
    expect(JSON.stringify(missing.json)).toContain('An LM Studio API token is required');
    expect((await post(server, ask('m'), { headers: { authorization: 'Bearer t' } })).status).toBe(200);
  });

  it('sends no content beside tool calls, numeric ids and the model as system_fingerprint', async () => {
    const server = await fake(lmStudio(), [fakeRunCode('print(1)')]);
    const answer = await post(server, ask('qwen2.5-7b-instruct'));
    const message = messageOf(answer);
    expect(message).not.toHaveProperty('content');
    expect((message.tool_calls as Array<{ id: string }>)[0]!.id).toMatch(/^\d{9}$/);
    expect((answer.json as { system_fingerprint: string }).system_fingerprint).toBe('qwen2.5-7b-instruct');
  });

  it('leaves a call it cannot parse in the content', async () => {
    const server = await fake(lmStudio({ unparsedToolCalls: true }), [fakeRunCode('print(1)')]);
    const message = messageOf(await post(server, ask('gemma-2-2b-it')));
    expect(message.content).toMatch(/^\[TOOL_REQUEST\]\{"name": "run_code"/);
    expect(message).not.toHaveProperty('tool_calls');
  });
});
