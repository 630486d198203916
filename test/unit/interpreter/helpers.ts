import pino from 'pino';
import type { Config } from '../../../src/config/index.js';
import { intentOf } from '../../../src/core/read-intent.js';
import type { Language } from '../../../src/domain/execution.js';
import type { InboundMessage } from '../../../src/domain/messages.js';
import type { ProgressEvent } from '../../../src/domain/progress-event.js';
import { Interpreter } from '../../../src/interpreter/interpreter.js';
import type { LlmClient, LlmMessage } from '../../../src/ports/llm-client.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import type { DataSources } from '../../../src/ports/data-sources.js';

export const silentLogger = pino({ level: 'silent' });

export function llmSettings(overrides: Partial<Config['llm']> = {}): Config['llm'] {
  return {
    apiKey: 'sk-test',
    baseUrl: undefined,
    model: 'scripted-model',
    configured: true,
    maxRounds: 12,
    tokenBudget: 300_000,
    turnTimeoutMs: 60_000,
    requestTimeoutMs: 10_000,
    maxRetries: 0,
    temperature: undefined,
    images: true,
    stream: false,
    tools: 'auto',
    dialect: undefined,
    contextTokens: undefined,
    memoryTokens: 24_000,
    // The figure check has its own tests (answer-check); here the loop's other behaviour is under test.
    verifyFigures: 'off',
    ...overrides,
  };
}

export interface Rig {
  interpreter: Interpreter;
  sandbox: FakeSandbox;
  store: MemoryConversationStore;
  events: ProgressEvent[];
}

export function rig(
  options: {
    llm?: LlmClient;
    sandbox?: FakeSandbox;
    settings?: Partial<Config['llm']>;
    sandboxTimeoutMs?: number;
    /** Read-only SQL sources the turns may query (issue 38). */
    sources?: DataSources;
  } = {},
): Rig {
  const sandbox = options.sandbox ?? new FakeSandbox();
  const store = new MemoryConversationStore({ sweepIntervalMs: 0 });
  const interpreter = new Interpreter({
    llm: options.llm,
    sandbox,
    store,
    settings: llmSettings(options.settings),
    sandboxTimeoutMs: options.sandboxTimeoutMs ?? 30_000,
    logger: silentLogger,
    ...(options.sources ? { sources: options.sources } : {}),
  });
  return { interpreter, sandbox, store, events: [] };
}

export const THREAD = 'cli:local:cli:t1';

/** The code a message asks to run as is, read by the core as the thread worker reads it. */
export function directCode(text: string): { threadKey: string; language: Language; code: string } {
  const message: InboundMessage = {
    id: 'm1',
    thread: { platform: 'cli', workspace: 'local', channel: 'cli', thread: 't1' },
    user: { id: 'u1' },
    text,
    attachments: [],
    receivedAtMs: 0,
  };
  const intent = intentOf(message);
  if (intent.kind !== 'run') throw new Error(`not code to run: ${intent.kind}`);
  return { threadKey: THREAD, language: intent.language, code: intent.code };
}

export function input(text: string, threadKey = THREAD) {
  return { threadKey, text, uploaded: [] };
}

/** The text of the tool messages of one request. */
export function toolMessages(messages: LlmMessage[]): string[] {
  return messages.flatMap((m) => (m.role === 'tool' ? [m.content] : []));
}

export function systemText(messages: LlmMessage[]): string {
  const first = messages[0];
  if (first?.role !== 'system') throw new Error('first message is not the system prompt');
  return first.content;
}

/** A 1x1 PNG, base64. */
export const PNG_1PX =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
