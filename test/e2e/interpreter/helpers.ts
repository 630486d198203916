import pino from 'pino';
import { OpenAiLlmClient } from '../../../adapters/openai/openai-llm-client.js';
import type { Config } from '../../../src/config/index.js';
import type { ProgressEvent } from '../../../src/domain/progress-event.js';
import { Interpreter } from '../../../src/interpreter/interpreter.js';
import type { Sandbox } from '../../../src/ports/sandbox.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import type { ChatRequestBody, FakeOpenAiServer, FakeReply } from '../../fakes/fake-openai-server.js';

export const logger = pino({ level: 'silent' });

export function settings(overrides: Partial<Config['llm']> = {}): Config['llm'] {
  return {
    apiKey: 'sk-e2e-test-key-000000',
    baseUrl: undefined,
    model: 'fake-gpt',
    configured: true,
    maxRounds: 12,
    tokenBudget: 300_000,
    turnTimeoutMs: 60_000,
    requestTimeoutMs: 10_000,
    maxRetries: 2,
    temperature: undefined,
    images: true,
    stream: true,
    tools: 'auto',
    dialect: undefined,
    contextTokens: undefined,
    memoryTokens: 24_000,
    // The figure check has its own tests (answer-check); here the loop's other behaviour is under test.
    verifyFigures: 'off',
    ...overrides,
  };
}

/** The real `openai` client pointed at the fake, wired into an Interpreter with the given sandbox. */
export function wire(server: FakeOpenAiServer, sandbox: Sandbox, overrides: Partial<Config['llm']> = {}) {
  const s = settings(overrides);
  const llm = new OpenAiLlmClient({
    apiKey: s.apiKey,
    baseUrl: server.baseUrl,
    model: s.model,
    requestTimeoutMs: s.requestTimeoutMs,
    maxRetries: s.maxRetries,
    stream: s.stream,
    images: s.images,
    logger,
  });
  const store = new MemoryConversationStore({ sweepIntervalMs: 0 });
  const interpreter = new Interpreter({ llm, sandbox, store, settings: s, sandboxTimeoutMs: 30_000, logger });
  const events: ProgressEvent[] = [];
  return { llm, store, interpreter, events, onProgress: (e: ProgressEvent) => events.push(e) };
}

export function call(code: string, language = 'python'): FakeReply {
  return { kind: 'message', toolCalls: [{ name: 'run_code', arguments: JSON.stringify({ language, code }) }] };
}

export function say(content: string): FakeReply {
  return { kind: 'message', content };
}

/** Tool messages of a recorded request body, in order. */
export function toolMessagesOf(body: ChatRequestBody): Array<{ tool_call_id?: string; content: string }> {
  return body.messages
    .filter((m) => m.role === 'tool')
    .map((m) => ({ tool_call_id: m.tool_call_id, content: String(m.content) }));
}

export function systemOf(body: ChatRequestBody): string {
  return String(body.messages[0]?.content);
}

export function input(text: string, threadKey = 'cli:local:cli:e2e') {
  return { threadKey, text, uploaded: [] as never[] };
}

export const PNG_1PX =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
