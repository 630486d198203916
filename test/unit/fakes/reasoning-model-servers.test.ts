import { describe, expect, it } from 'vitest';
import { fakeRunCode, fakeSay, type FakeReply } from '../../fakes/fake-openai-server.js';
import { deepseek } from '../../fakes/model-servers/deepseek.js';
import { gemini } from '../../fakes/model-servers/gemini.js';
import { groq } from '../../fakes/model-servers/groq.js';
import { openaiReasoning } from '../../fakes/model-servers/openai-reasoning.js';
import {
  ask,
  choiceOf,
  chunks,
  events,
  fake,
  messageOf,
  post,
  QUESTION,
  RUN_CODE_ARGS,
  RUN_CODE_TOOL,
  toolTurn,
} from './server-client.js';

// How reasoning models' servers want their thoughts, signatures and parameters back, each as the real one answers.
describe("Gemini's OpenAI-compatible API", () => {
  const key = { authorization: 'Bearer gemini-test-key' };

  it('answers errors as a JSON array, a bad key with API_KEY_INVALID', async () => {
    const server = await fake(gemini(), [{ kind: 'error', status: 429, message: 'Resource exhausted.' }]);
    const bad = await post(server, ask('gemini-3-flash-preview'), { headers: { authorization: 'Bearer x' } });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject([
      {
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
          details: [{ reason: 'API_KEY_INVALID' }, { locale: 'en-US' }],
        },
      },
    ]);
    const limited = await post(server, ask('gemini-3-flash-preview'), { headers: key });
    expect(limited.json).toEqual([
      { error: { code: 429, message: 'Resource exhausted.', status: 'RESOURCE_EXHAUSTED' } },
    ]);
  });

  it('signs the first tool call, and ends a streamed call with finish_reason stop', async () => {
    const server = await fake(gemini(), [fakeRunCode('print(1)'), fakeRunCode('print(1)')]);
    const whole = await post(server, ask('gemini-3-flash-preview'), { headers: key });
    const [call] = messageOf(whole).tool_calls as Array<{ extra_content: { google: { thought_signature: string } } }>;
    expect(call!.extra_content.google.thought_signature).toMatch(/^[A-Za-z0-9+/=]{40,}$/);
    expect((whole.json as { choices: Array<{ finish_reason: string }> }).choices[0]!.finish_reason).toBe('tool_calls');
    expect((whole.json as { model: string }).model).toBe('models/gemini-3-flash-preview');
    const streamed = await post(server, ask('gemini-3-flash-preview', { stream: true }), { headers: key });
    const deltas = chunks(streamed.text).map((c) => choiceOf(c));
    const streamedCall = deltas.find((d) => d?.delta?.tool_calls)?.delta?.tool_calls as Array<Record<string, unknown>>;
    expect(streamedCall[0]!.extra_content).toBeDefined();
    expect(deltas.map((d) => d?.finish_reason).filter(Boolean)).toEqual(['stop']);
  });

  it('refuses a tool-call turn whose thought signature was not sent back', async () => {
    const server = await fake(gemini(), [fakeSay('42')]);
    const body = (callExtra: Record<string, unknown>) => ({
      model: 'gemini-3-flash-preview',
      tools: [RUN_CODE_TOOL],
      messages: [{ role: 'system', content: 'Be brief.' }, QUESTION, ...toolTurn('c1', {}, callExtra)],
    });
    const refused = await post(server, body({}), { headers: key });
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual([
      {
        error: {
          code: 400,
          message:
            'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:run_code` , position 2. please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.',
          status: 'INVALID_ARGUMENT',
        },
      },
    ]);
    const signed = { extra_content: { google: { thought_signature: 'c2lnbmF0dXJl' } } };
    expect((await post(server, body(signed), { headers: key })).status).toBe(200);
  });

  it('checks only the current turn, and Gemini 2.5 does not check', async () => {
    const server = await fake(gemini(), [fakeSay('a'), fakeSay('b')]);
    const earlier = {
      model: 'gemini-3-flash-preview',
      messages: [
        QUESTION,
        ...toolTurn('c1'),
        { role: 'assistant', content: '42' },
        { role: 'user', content: 'thanks' },
      ],
    };
    expect((await post(server, earlier, { headers: key })).status).toBe(200);
    const older = { model: 'gemini-2.5-flash', messages: [QUESTION, ...toolTurn('c1')] };
    expect((await post(server, older, { headers: key })).status).toBe(200);
  });
});

describe('Groq', () => {
  const key = { authorization: 'Bearer gsk_test_key' };

  it('fails a generated tool call that does not validate: 400 tool_use_failed, or an error event when streaming', async () => {
    const broken: FakeReply = { kind: 'message', toolCalls: [{ name: 'run_code', arguments: '{"code": "print(1)' }] };
    const server = await fake(groq(), [broken, broken]);
    const whole = await post(server, ask('qwen/qwen3-32b'), { headers: key });
    expect(whole.status).toBe(400);
    expect(whole.json).toEqual({
      error: {
        message: "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.",
        type: 'invalid_request_error',
        code: 'tool_use_failed',
        failed_generation: 'run_code{"code": "print(1)</function>',
      },
    });
    const streamed = await post(server, ask('qwen/qwen3-32b', { stream: true }), { headers: key });
    expect(streamed.status).toBe(200);
    const [event] = events(streamed.text);
    expect(event).toMatchObject({ event: 'error', data: { error: { code: 'tool_use_failed', status_code: 400 } } });
  });

  it('refuses reasoning_content on an assistant message', async () => {
    const server = await fake(groq());
    const body = {
      model: 'qwen/qwen3-32b',
      messages: [QUESTION, ...toolTurn('call_ab12', { reasoning_content: 'x' })],
    };
    const answer = await post(server, body, { headers: key });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({
      error: {
        message:
          "'messages.1' : for 'role:assistant' the following must be satisfied[('messages.1' : property 'reasoning_content' is unsupported)]",
        type: 'invalid_request_error',
      },
    });
  });

  it('sends reasoning in `reasoning` with tools, in <think> tags without, and refuses raw with tools', async () => {
    const think = { kind: 'message', reasoning: 'Hmm.', content: '42' } as const;
    const server = await fake(groq(), [think, think]);
    expect(messageOf(await post(server, ask('qwen/qwen3-32b'), { headers: key })).reasoning).toBe('Hmm.');
    const raw = messageOf(await post(server, { model: 'qwen/qwen3-32b', messages: [QUESTION] }, { headers: key }));
    expect(raw.content).toBe('<think>\nHmm.\n</think>\n\n42');
    const refused = await post(server, ask('qwen/qwen3-32b', { reasoning_format: 'raw' }), { headers: key });
    expect(refused.status).toBe(400);
  });

  it('answers 401 Invalid API Key and reports usage in x_groq on the last chunk', async () => {
    const server = await fake(groq(), [fakeSay('42')]);
    expect((await post(server, ask('llama-3.3-70b-versatile'))).json).toEqual({
      error: { message: 'Invalid API Key', type: 'invalid_request_error', code: 'invalid_api_key' },
    });
    const answer = await post(server, ask('llama-3.3-70b-versatile', { stream: true }), { headers: key });
    const finish = chunks(answer.text).find((c) => choiceOf(c)?.finish_reason);
    expect(finish).toMatchObject({ x_groq: { usage: { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 } } });
  });
});

describe('DeepSeek', () => {
  it('returns reasoning_content in thinking mode and refuses a tool-call turn that does not send it back', async () => {
    const server = await fake(deepseek(), [
      { kind: 'message', reasoning: 'Use code.', toolCalls: [{ name: 'run_code', arguments: RUN_CODE_ARGS }] },
      fakeSay('42'),
    ]);
    expect(server.baseUrl).toMatch(/:\d+$/);
    const first = await post(server, ask('deepseek-v4-flash'));
    const message = messageOf(first);
    expect(message.reasoning_content).toBe('Use code.');
    const id = (message.tool_calls as Array<{ id: string }>)[0]!.id;
    const withoutIt = await post(server, { model: 'deepseek-v4-flash', messages: [QUESTION, ...toolTurn(id)] });
    expect(withoutIt.status).toBe(400);
    expect(withoutIt.json).toEqual({
      error: {
        message: 'The `reasoning_content` in the thinking mode must be passed back to the API.',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_request_error',
      },
    });
    const next = [QUESTION, ...toolTurn(id, { reasoning_content: 'Use code.' })];
    expect((await post(server, { model: 'deepseek-v4-flash', messages: next })).status).toBe(200);
  });

  it('still wants it in later turns that called tools, not in turns that did not', async () => {
    const server = await fake(deepseek(), [fakeSay('a')]);
    const later = [
      QUESTION,
      ...toolTurn('call_00_x'),
      { role: 'assistant', content: '42', reasoning_content: 'done' },
      { role: 'user', content: 'thanks' },
    ];
    expect((await post(server, { model: 'deepseek-v4-flash', messages: later })).status).toBe(400);
    const chat = [QUESTION, { role: 'assistant', content: '42' }, { role: 'user', content: 'thanks' }];
    expect((await post(server, { model: 'deepseek-v4-flash', messages: chat })).status).toBe(200);
  });

  it('names the message index with deepseek-reasoner, and checks nothing with deepseek-chat', async () => {
    const server = await fake(deepseek({ model: 'deepseek-reasoner' }), [fakeSay('a')]);
    const messages = [{ role: 'system', content: 's' }, QUESTION, ...toolTurn('call_00_x')];
    const answer = await post(server, { model: 'deepseek-reasoner', messages });
    expect((answer.json as { error: { message: string } }).error.message).toBe(
      'Missing `reasoning_content` field in the assistant message at message index 2. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls',
    );
    expect((await post(server, { model: 'deepseek-chat', messages })).status).toBe(200);
  });
});

describe("OpenAI's reasoning models", () => {
  it('refuses max_tokens and any temperature but 1', async () => {
    const server = await fake(openaiReasoning(), [fakeSay('42')]);
    const maxTokens = await post(server, ask('o4-mini', { max_tokens: 100 }));
    expect(maxTokens.status).toBe(400);
    expect(maxTokens.json).toEqual({
      error: {
        message:
          "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        type: 'invalid_request_error',
        param: 'max_tokens',
        code: 'unsupported_parameter',
      },
    });
    const temperature = await post(server, ask('o4-mini', { temperature: 0.2 }));
    expect(temperature.json).toEqual({
      error: {
        message:
          "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.",
        type: 'invalid_request_error',
        param: 'temperature',
        code: 'unsupported_value',
      },
    });
    const fine = await post(server, ask('o4-mini', { temperature: 1, max_completion_tokens: 100 }));
    expect((fine.json as { usage: { completion_tokens_details: object } }).usage.completion_tokens_details).toEqual({
      reasoning_tokens: 5,
    });
  });

  it('refuses temperature outright on o3-mini', async () => {
    const server = await fake(openaiReasoning({ model: 'o3-mini' }));
    const answer = await post(server, ask('o3-mini', { temperature: 1 }));
    expect(answer.json).toMatchObject({
      error: {
        message: "Unsupported parameter: 'temperature' is not supported with this model.",
        code: 'unsupported_parameter',
      },
    });
  });
});
