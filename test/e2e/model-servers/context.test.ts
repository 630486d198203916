/**
 * Context that fits (issue 37, item 7), through the real `openai` client and the interpreter loop: a long thread and a
 * big tool result meet a 4k window on vLLM, llama.cpp and Ollama as their fakes play them (vLLM and llama.cpp refuse a
 * prompt over the window, Ollama drops its oldest messages silently). The window is learned from each server's own
 * endpoint; the user gets the computed answer and one line saying the thread was shortened. A refusal is retried once,
 * shortened; a second refusal ends the turn with the advice.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAiLlmClient } from '../../../adapters/openai/openai-llm-client.js';
import type { Config } from '../../../src/config/index.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { Interpreter } from '../../../src/interpreter/interpreter.js';
import { FakeOpenAiServer } from '../../fakes/fake-openai-server.js';
import type { ServerDialect } from '../../fakes/model-servers/dialect.js';
import { promptTokens } from '../../fakes/model-servers/dialect.js';
import { llamaCpp, ollama, vllm } from '../../fakes/model-servers/index.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { settings } from '../interpreter/helpers.js';
import {
  CONTEXT_ANSWER as ANSWER,
  CONTEXT_QUESTION as QUESTION,
  contextModel,
  LOG_CODE as CODE,
  LOG_OUTPUT as LOG,
  SHORTENED_LINE,
  threadQuestion,
} from './context-script.js';

const logger = pino({ level: 'silent' });
const WINDOW = 4096;
const SERVERS: Array<{ name: string; model: string; dialect: (window: number) => ServerDialect }> = [
  { name: 'vLLM', model: 'Qwen/Qwen3-8B', dialect: (window) => vllm({ maxModelLen: window }) },
  { name: 'llama.cpp', model: 'qwen3-8b', dialect: (window) => llamaCpp({ nCtx: window }) },
  { name: 'Ollama', model: 'qwen3:8b', dialect: (window) => ollama({ numCtx: window }) },
];

let server: FakeOpenAiServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function start(dialect: ServerDialect, model: string, overrides: Partial<Config['llm']> = {}) {
  server = new FakeOpenAiServer({ dialect, fallback: contextModel });
  await server.start();
  const llm = new OpenAiLlmClient({
    baseUrl: server.baseUrl,
    model,
    requestTimeoutMs: 10_000,
    maxRetries: 0,
    stream: true,
    images: true,
    logger,
  });
  const sandbox = new FakeSandbox({ handler: ({ request }) => ({ stdout: request.code === CODE ? LOG : '' }) });
  const interpreter = new Interpreter({
    llm,
    sandbox,
    store: new MemoryConversationStore({ sweepIntervalMs: 0 }),
    settings: settings({ model, stream: true, maxRetries: 0, ...overrides }),
    sandboxTimeoutMs: 10_000,
    logger,
  });
  const ask = (threadKey: string, question: string) =>
    interpreter.handle({ threadKey, text: question, uploaded: [] }, {});
  return { server, ask, sandbox };
}

/** Six earlier exchanges of about 600 tokens each: far more than a 4k window with the question's log. */
async function longThread(ask: (thread: string, q: string) => Promise<unknown>, thread: string): Promise<void> {
  for (let i = 0; i < 6; i += 1) await ask(thread, threadQuestion(i));
}

describe.each(SERVERS)('a long thread and a big tool result in a 4k window: $name', ({ dialect, model: name }) => {
  it('answers with the computed result and says the thread was shortened, each request inside the window', async () => {
    const { server, ask, sandbox } = await start(dialect(WINDOW), name);
    const thread = `cli:local:cli:context-${name}`;
    await longThread(ask, thread);
    const before = server.requests.length;
    const result = await ask(thread, QUESTION);

    expect(result, result.text).toMatchObject({ outcome: 'answer' });
    expect(result.text).toContain(ANSWER);
    expect(result.text).toContain(SHORTENED_LINE);
    expect(result.behaviour).toContain('context_shortened');
    expect(sandbox.runs.map((r) => r.request.code)).toEqual([CODE]);
    const turn = server.requests.slice(before);
    expect(turn).toHaveLength(2);
    for (const request of turn) {
      expect(request.refusal).toBeUndefined();
      expect(request.seen, 'Ollama truncated the prompt').toBeUndefined();
      expect(promptTokens(request.body)).toBeLessThan(WINDOW);
      expect(request.body.messages[0]!.role).toBe('system');
    }
  });
});

describe('a context refusal', () => {
  it.each(SERVERS.slice(0, 2))(
    '$name: retried once, fitted to the window the refusal names, when the setting was too high',
    async ({ dialect, model: name }) => {
      const { server, ask } = await start(dialect(WINDOW), name, { contextTokens: 32_768 });
      const thread = `cli:local:cli:refused-${name}`;
      await longThread(ask, thread);
      const before = server.requests.length;
      const result = await ask(thread, QUESTION);

      expect(result, result.text).toMatchObject({ outcome: 'answer' });
      expect(result.text).toContain(ANSWER);
      expect(result.text).toContain("shortened to fit the model's 4,096-token context");
      const turn = server.requests.slice(before);
      expect(turn.filter((r) => r.refusal)).toHaveLength(1);
      expect(turn[0]!.refusal?.status).toBe(400);
      // The setting is trusted on the next turn too: refused once more, retried once, answered.
      const next = await ask(thread, `${QUESTION} Once more, please.`);
      expect(next.text).toContain(ANSWER);
      expect(server.requests.slice(before + turn.length).filter((r) => r.refusal)).toHaveLength(1);
    },
  );

  it.each(SERVERS.slice(0, 2))(
    '$name: a second refusal ends the turn with the advice',
    async ({ dialect, model: name }) => {
      // A window smaller than the system prompt: no shortening can fit it.
      const { server, ask } = await start(dialect(300), name, { contextTokens: 32_768 });
      const result = await ask(`cli:local:cli:tiny-${name}`, QUESTION);

      expect(result.outcome).toBe('failed');
      expect(result.text).toContain("The language model's server refused the request");
      expect(result.text).toMatch(/context/);
      expect(result.text).toContain('THREADLAB_LLM_CONTEXT_TOKENS');
      expect(result.behaviour).toEqual(expect.arrayContaining(['context_shortened', 'context_refused']));
      expect(server.requests.filter((r) => r.refusal)).toHaveLength(2);
    },
  );
});
