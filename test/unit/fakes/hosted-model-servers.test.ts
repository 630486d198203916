import { describe, expect, it } from 'vitest';
import { fakeRunCode, fakeSay } from '../../fakes/fake-openai-server.js';
import { azure } from '../../fakes/model-servers/azure.js';
import { mistral } from '../../fakes/model-servers/mistral.js';
import { openrouter } from '../../fakes/model-servers/openrouter.js';
import { ask, choiceOf, chunks, events, fake, joined, post, QUESTION, toolTurn } from './server-client.js';

// The servers of reasoning models (Gemini, Groq, DeepSeek, OpenAI's o-series): reasoning-model-servers.test.ts.
describe('Azure OpenAI', () => {
  const key = { 'api-key': 'azure-test-key' };
  const version = '?api-version=2024-10-21';

  it('wants the key in the api-key header: a Bearer key is taken for an Entra token', async () => {
    const server = await fake(azure(), [fakeSay('ok')]);
    expect(server.baseUrl).toMatch(/\/openai\/deployments\/gpt-4o$/);
    const bearer = await post(server, ask('gpt-4o'), {
      query: version,
      headers: { authorization: 'Bearer azure-test-key' },
    });
    expect(bearer.status).toBe(401);
    expect(bearer.json).toEqual({
      statusCode: 401,
      message:
        'Unauthorized. Access token is missing, invalid, audience is incorrect (https://cognitiveservices.azure.com), or have expired.',
    });
    const wrong = await post(server, ask('gpt-4o'), { query: version, headers: { 'api-key': 'nope' } });
    expect(wrong.json).toMatchObject({ error: { code: '401' } });
    expect(JSON.stringify(wrong.json)).toContain(
      'Access denied due to invalid subscription key or wrong API endpoint.',
    );
    expect((await post(server, ask('gpt-4o'), { query: version, headers: key })).status).toBe(200);
  });

  it('answers 404 without api-version, and DeploymentNotFound for another deployment', async () => {
    const server = await fake(azure());
    const unversioned = await post(server, ask('gpt-4o'), { headers: key });
    expect(unversioned.status).toBe(404);
    expect(unversioned.json).toEqual({ error: { code: '404', message: 'Resource not found' } });
    const other = await post(server, ask('gpt-4o'), {
      path: '/../gpt-35/chat/completions',
      query: version,
      headers: key,
    });
    expect(other.status).toBe(404);
    expect(other.json).toMatchObject({ error: { code: 'DeploymentNotFound' } });
  });

  it('refuses stream_options on an api-version from before it existed', async () => {
    const server = await fake(azure({ apiVersion: '2024-02-01' }), [fakeSay('ok')]);
    const streamOptions = { stream: true, stream_options: { include_usage: true } };
    const refused = await post(server, ask('gpt-4o', streamOptions), {
      query: '?api-version=2024-02-01',
      headers: key,
    });
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      error: {
        message:
          'Unrecognized request argument supplied: stream_options. Please contact us through an Azure support request at: https://go.microsoft.com/fwlink/?linkid=2213926 for further questions.',
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    });
    const plain = await post(server, ask('gpt-4o', { stream: true }), {
      query: '?api-version=2024-02-01',
      headers: key,
    });
    expect(plain.status).toBe(200);
  });

  it('opens a stream with an empty-choices prompt filter chunk and filters every choice', async () => {
    const server = await fake(azure(), [fakeSay('hello there')]);
    const answer = await post(server, ask('gpt-4o', { stream: true }), { query: version, headers: key });
    const [lead, ...rest] = chunks(answer.text);
    expect(lead).toMatchObject({ choices: [], created: 0, id: '', model: '', object: '' });
    expect(lead!.prompt_filter_results).toHaveLength(1);
    expect(rest.every((c) => choiceOf(c)?.content_filter_results)).toBe(true);
    expect(joined(answer.text, 'content')).toBe('hello there');
  });

  it('sends an annotation chunk without delta after the finish with asynchronous filtering', async () => {
    const server = await fake(azure({ asyncFilter: true }), [fakeSay('hi')]);
    const answer = await post(server, ask('gpt-4o', { stream: true }), { query: version, headers: key });
    const all = chunks(answer.text);
    const finish = all.findIndex((c) => choiceOf(c)?.finish_reason === 'stop');
    const late = all[finish + 1]!;
    expect(choiceOf(late)).not.toHaveProperty('delta');
    expect(choiceOf(late)?.content_filter_offsets).toBeDefined();
  });

  it('takes the key as a Bearer token on the v1 API', async () => {
    const server = await fake(azure({ v1: true }), [fakeSay('ok')]);
    expect(server.baseUrl).toMatch(/\/openai\/v1$/);
    expect((await post(server, ask('gpt-4o'), { headers: { authorization: 'Bearer azure-test-key' } })).status).toBe(
      200,
    );
  });
});

describe('Mistral', () => {
  const key = { authorization: 'Bearer mistral-test-key' };

  it('refuses stream_options.include_usage with a 422 extra_forbidden detail', async () => {
    const server = await fake(mistral());
    const answer = await post(
      server,
      ask('mistral-large-latest', { stream: true, stream_options: { include_usage: true } }),
      {
        headers: key,
      },
    );
    expect(answer.status).toBe(422);
    expect(answer.json).toEqual({
      object: 'error',
      message: {
        detail: [
          {
            type: 'extra_forbidden',
            loc: ['body', 'stream_options', 'include_usage'],
            msg: 'Extra inputs are not permitted',
            input: true,
          },
        ],
      },
      type: 'invalid_request_error',
      param: null,
      code: null,
    });
  });

  it('refuses a user message right after a tool message, and ids that are not 9 alphanumerics', async () => {
    const server = await fake(mistral(), [fakeSay('ok')]);
    const userAfterTool = await post(
      server,
      {
        model: 'mistral-large-latest',
        messages: [QUESTION, ...toolTurn('abcDEF123'), { role: 'user', content: 'and?' }],
      },
      { headers: key },
    );
    expect(userAfterTool.status).toBe(400);
    expect(userAfterTool.json).toEqual({
      object: 'error',
      message: "Unexpected role 'user' after role 'tool'",
      type: 'invalid_request_message_order',
      param: null,
      code: '3230',
    });
    const badId = await post(
      server,
      { model: 'mistral-large-latest', messages: [QUESTION, ...toolTurn('call_1')] },
      {
        headers: key,
      },
    );
    expect(badId.json).toMatchObject({
      message: 'Tool call id was call_1 but must be a-z, A-Z, 0-9, with a length of 9.',
      type: 'invalid_function_call',
      code: '3280',
    });
    const fine = { model: 'mistral-large-latest', messages: [QUESTION, ...toolTurn('abcDEF123')] };
    expect((await post(server, fine, { headers: key })).status).toBe(200);
  });

  it('answers 401 FastAPI-style, ids of 9 characters and usage on the last chunk', async () => {
    const server = await fake(mistral(), [fakeRunCode('print(1)')]);
    const unauthorized = await post(server, ask('mistral-large-latest'));
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.json).toEqual({ detail: 'Unauthorized' });
    const answer = await post(server, ask('mistral-large-latest', { stream: true }), { headers: key });
    const all = chunks(answer.text);
    const call = all.find((c) => choiceOf(c)?.delta?.tool_calls);
    expect((choiceOf(call!)!.delta!.tool_calls as Array<{ id: string }>)[0]!.id).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(all.at(-1)).toHaveProperty('usage');
    expect(choiceOf(all.at(-1)!)?.finish_reason).toBe('tool_calls');
  });
});

describe('OpenRouter', () => {
  const key = { authorization: 'Bearer sk-or-v1-test' };

  it('sends processing comments, and an error midway as a chunk with finish_reason error and no [DONE]', async () => {
    const server = await fake(openrouter(), [
      fakeSay('hi'),
      { kind: 'broken-stream', content: 'Half an ans', message: 'Provider disconnected unexpectedly' },
    ]);
    const fine = await post(server, ask('openai/gpt-4o', { stream: true }), { headers: key });
    expect(events(fine.text).slice(0, 2)).toEqual([
      { comment: 'OPENROUTER PROCESSING' },
      { comment: 'OPENROUTER PROCESSING' },
    ]);
    const broken = await post(server, ask('openai/gpt-4o', { stream: true }), { headers: key });
    expect(broken.status).toBe(200);
    expect(joined(broken.text, 'content')).toBe('Half an ans');
    const last = chunks(broken.text).at(-1)!;
    expect(last).toMatchObject({
      object: 'chat.completion.chunk',
      error: { code: 'server_error', message: 'Provider disconnected unexpectedly' },
      choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }],
    });
    expect(broken.text).not.toContain('[DONE]');
  });

  it('refuses keys and models without a tool-capable provider', async () => {
    const server = await fake(openrouter({ toolEndpoints: false }));
    expect((await post(server, ask('m'))).json).toEqual({ error: { message: 'No auth credentials found', code: 401 } });
    const wrongKey = await post(server, ask('m'), { headers: { authorization: 'Bearer x' } });
    expect(wrongKey.json).toEqual({ error: { message: 'User not found.', code: 401 } });
    const noTools = await post(server, ask('deepseek/deepseek-r1:free'), { headers: key });
    expect(noTools.status).toBe(404);
    expect(noTools.json).toEqual({
      error: {
        message:
          'No endpoints found that support tool use. To learn more about provider routing, visit: https://openrouter.ai/docs/guides/routing/provider-selection',
        code: 404,
      },
    });
  });

  it("passes a provider's refusal on, wrapped with the raw body", async () => {
    const server = await fake(openrouter({ upstream: 'mistral' }));
    const body = { model: 'mistralai/mistral-large', messages: [QUESTION, ...toolTurn('abcDEF123'), QUESTION] };
    const answer = await post(server, body, { headers: key });
    expect(answer.status).toBe(400);
    const { error } = answer.json as { error: { message: string; code: number; metadata: { raw: string } } };
    expect(error).toMatchObject({
      message: 'Provider returned error',
      code: 400,
      metadata: { provider_name: 'Mistral' },
    });
    expect(JSON.parse(error.metadata.raw)).toMatchObject({ code: '3230' });
  });
});
