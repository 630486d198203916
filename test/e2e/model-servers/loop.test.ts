/**
 * Every model server of the catalogue (test/fakes/model-servers), as its fake plays it, through the real `openai`
 * client and the interpreter loop, streamed and not: a question that needs code gets the computed answer, clean.
 * The sandbox is a fake here (the shipped-process tests beside this file use real Docker); what is tested is what
 * the client and the loop make of each server.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAiLlmClient } from '../../../adapters/openai/openai-llm-client.js';
import { Interpreter } from '../../../src/interpreter/interpreter.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { FakeOpenAiServer } from '../../fakes/fake-openai-server.js';
import { MODEL_SERVERS, threadlabEnv } from '../../fakes/model-servers/index.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { settings } from '../interpreter/helpers.js';
import { CODE, NEVER_SHOWN, QUESTION, RESULT, sumOfSquaresModel, THOUGHT } from './model-script.js';

const logger = pino({ level: 'silent' });
/** Servers that cannot answer as configured: the reply must say why and what to change. */
const CANNOT: Record<string, RegExp> = {
  'ollama-not-pulled': /not found, try pulling it first.*OPENAI_MODEL/s,
};

let server: FakeOpenAiServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe.each([true, false])('every model server, streamed: %s', (stream) => {
  it.each(MODEL_SERVERS.map((entry) => [entry.name, entry] as const))('%s', async (_name, entry) => {
    server = new FakeOpenAiServer({ dialect: entry.dialect(), fallback: sumOfSquaresModel });
    await server.start();
    const env = threadlabEnv(entry, server);
    const s = settings({ model: env.OPENAI_MODEL, stream, maxRetries: 1, temperature: 0.2 });
    const llm = new OpenAiLlmClient({
      ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}),
      baseUrl: env.OPENAI_BASE_URL,
      model: env.OPENAI_MODEL,
      requestTimeoutMs: 10_000,
      maxRetries: 1,
      stream,
      images: true,
      logger,
    });
    const sandbox = new FakeSandbox({
      handler: ({ request }) => ({ stdout: request.code === CODE ? `${RESULT}\n` : '' }),
    });
    const interpreter = new Interpreter({
      llm,
      sandbox,
      store: new MemoryConversationStore({ sweepIntervalMs: 0 }),
      settings: s,
      sandboxTimeoutMs: 10_000,
      logger,
    });
    const streamed: string[] = [];
    const result = await interpreter.handle(
      { threadKey: `cli:local:cli:${entry.name}`, text: QUESTION, uploaded: [] },
      { onProgress: (e) => (e.type === 'text' ? streamed.push(e.delta) : undefined) },
    );
    const cannot = CANNOT[entry.name];
    if (cannot) {
      expect(result.outcome).toBe('failed');
      expect(result.text).toMatch(cannot);
    } else {
      expect(result, `${entry.name}: ${result.text}`).toMatchObject({ outcome: 'answer' });
      expect(result.text).toContain(RESULT);
      expect(sandbox.runs.map((r) => r.request.code)).toEqual([CODE]);
    }
    for (const never of NEVER_SHOWN) {
      expect(result.text).not.toMatch(never);
      expect(streamed.join('')).not.toMatch(never);
    }
    // Thinking the server sent is kept out of the answer, and offered apart.
    if (result.thinking) expect(result.thinking).toContain(THOUGHT.slice(0, 20));
  });
});
