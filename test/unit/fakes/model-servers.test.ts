import { describe, expect, it } from 'vitest';
import { fakeRunCode, fakeSay } from '../../fakes/fake-openai-server.js';
import { MODEL_SERVERS, threadlabEnv, type ModelServerEntry } from '../../fakes/model-servers/index.js';
import { ask, fake, type Answer } from './server-client.js';

/** A request as a user configured for `entry` would send it, with the key where the server wants it. */
async function askAs(entry: ModelServerEntry, baseUrl: string, body: Record<string, unknown>): Promise<Answer> {
  const { threadlab } = entry;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (threadlab.auth === 'bearer') headers.authorization = `Bearer ${threadlab.apiKey}`;
  if (threadlab.auth === 'api-key-header') headers['api-key'] = threadlab.apiKey!;
  const [path, query = ''] = baseUrl.split('?');
  const response = await fetch(`${path}/chat/completions${query ? `?${query}` : ''}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text, json: JSON.parse(text) as unknown };
}

describe('the catalogue of model servers', () => {
  it('names each entry once and covers every server of issue 24', () => {
    const names = MODEL_SERVERS.map((entry) => entry.name);
    expect(new Set(names).size).toBe(names.length);
    const servers = new Set(MODEL_SERVERS.map((entry) => entry.server));
    expect([...servers]).toEqual([
      'Ollama',
      'vLLM',
      "llama.cpp's llama-server",
      'LM Studio',
      'Azure OpenAI',
      "Gemini's OpenAI-compatible API",
      'Mistral',
      'Groq',
      'OpenRouter',
      'DeepSeek',
      "OpenAI's reasoning models",
    ]);
  });

  it.each(MODEL_SERVERS)('configures Threadlab for $name so that a plain question is answered', async (entry) => {
    const server = await fake(entry.dialect(), [fakeSay('42')]);
    const env = threadlabEnv(entry, server);
    expect(env.OPENAI_BASE_URL.startsWith(server.baseUrl)).toBe(true);
    expect(env.OPENAI_MODEL).toBe(entry.threadlab.model);
    const answer = await askAs(entry, env.OPENAI_BASE_URL, {
      model: env.OPENAI_MODEL,
      messages: [{ role: 'user', content: 'hi' }],
    });
    if (entry.name === 'ollama-not-pulled') return expect(answer.status).toBe(404);
    expect(answer.status).toBe(200);
    expect(JSON.stringify(answer.json)).toContain('42');
  });

  it.each(MODEL_SERVERS.filter((entry) => entry.toolCalls === 'refused'))(
    'refuses a request with tools to $name',
    async (entry) => {
      const server = await fake(entry.dialect(), [fakeRunCode('print(1)')]);
      const answer = await askAs(entry, threadlabEnv(entry, server).OPENAI_BASE_URL, ask(entry.threadlab.model));
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(server.requests[0]!.refusal?.status).toBe(answer.status);
      expect(server.remaining).toBe(1);
    },
  );
});
