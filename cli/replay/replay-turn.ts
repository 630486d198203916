import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config/index.js';
import { MemoryConversationStore } from '../../src/conversations/memory-conversation-store.js';
import { cliThreadKey } from '../../src/domain/thread-key.js';
import { Interpreter } from '../../src/interpreter/index.js';
import { createLogger } from '../../src/logger.js';
import type { Sandbox } from '../../src/ports/sandbox.js';
import type { CliIo } from '../args.js';
import { prepareImage } from '../commands/prepare-image.js';
import type { Recording } from './read-recording.js';
import { ReplayServer, type ReceivedRequest } from './replay-server.js';

/** What the turn of a recording says when today's code runs it again. */
export interface ReplayedTurn {
  /** The requests today's code sent, in order. */
  requests: ReceivedRequest[];
  outcome: string;
  text: string;
}

/** The key the replayed client sends; it is redacted like any other before comparing. */
const REPLAY_KEY = 'threadlab-replay-key';
/** The note the interpreter adds to a message with uploads (src/interpreter/interpreter.ts). */
const UPLOAD_NOTE = /\n\n\(Uploaded with this message: [^\n]*\)$/;

type Message = { role?: unknown; content?: unknown };

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  return (content as Array<{ type?: unknown; text?: unknown }>)
    .map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : ''))
    .join('');
}

/**
 * The user's message of the recorded turn: the last user message of its first request, and how many messages
 * of earlier turns came before it (history a fresh thread cannot have). Undefined when there is none.
 */
export function recordedQuestion(recording: Recording): { text: string; earlierMessages: number } | undefined {
  // The first chat request: a probe of the server (its context window: /models, /props) may come before it.
  const chat = recording.exchanges.find((e) =>
    Array.isArray((e.request.body as { messages?: unknown } | null)?.messages),
  );
  const body = chat?.request.body as { messages?: unknown } | undefined;
  const messages = Array.isArray(body?.messages) ? (body.messages as Message[]) : [];
  const last = messages.map((m) => m.role).lastIndexOf('user');
  const text = last >= 0 ? textOf(messages[last]!.content) : undefined;
  if (text === undefined) return undefined;
  const earlierMessages = messages.slice(0, last).filter((m) => m.role !== 'system').length;
  return { text: text.replace(UPLOAD_NOTE, ''), earlierMessages };
}

/** The environment of the replay: the user's (Docker, sandbox image, limits), the model settings of the recording. */
function replayEnv(recording: Recording, origin: string, env: CliIo['env']): Record<string, string | undefined> {
  const s = recording.header.settings;
  const endpoint = new URL(recording.header.endpoint);
  const out: Record<string, string | undefined> = { ...env };
  for (const name of Object.keys(out)) if (name.startsWith('THREADLAB_LLM_RECORD')) delete out[name];
  return {
    ...out,
    // The recorded path and query (Azure's deployment and api-version tell the client its dialect).
    OPENAI_BASE_URL: `${origin}${endpoint.pathname.replace(/\/$/, '')}${endpoint.search}`,
    OPENAI_API_KEY: REPLAY_KEY,
    OPENAI_MODEL: s.model,
    THREADLAB_LLM_STREAM: String(s.stream),
    THREADLAB_LLM_TOOLS: s.tools,
    THREADLAB_LLM_IMAGES: String(s.images),
    THREADLAB_LLM_TEMPERATURE: s.temperature === undefined ? undefined : String(s.temperature),
    THREADLAB_LLM_MAX_ROUNDS: String(s.maxRounds),
    THREADLAB_LLM_TOKEN_BUDGET: String(s.tokenBudget),
    THREADLAB_LLM_MAX_RETRIES: String(s.maxRetries),
    THREADLAB_LLM_DIALECT: s.dialect,
    THREADLAB_VERIFY_FIGURES: s.verifyFigures,
    THREADLAB_MEMORY_TOKENS: String(s.memoryTokens),
  };
}

/**
 * Runs the recorded turn again with today's code: the recording served by a {@link ReplayServer}, the model client
 * made as `threadlab chat` makes it, the recorded question through the same Interpreter, in a fresh thread of the
 * real Docker sandbox (the runs' output is part of what the model is sent, so they must run as they did).
 */
export async function replayTurn(recording: Recording, question: string, io: CliIo): Promise<ReplayedTurn> {
  const server = new ReplayServer(recording.exchanges);
  await server.start();
  const dataDir = mkdtempSync(join(tmpdir(), 'threadlab-replay-'));
  let sandbox: Sandbox | undefined;
  const threadKey = cliThreadKey(`replay-${randomUUID().slice(0, 8)}`);
  const config = loadConfig(replayEnv(recording, server.origin, io.env));
  const logger = createLogger({ level: 'error', secrets: config.secrets });
  try {
    // The composition root loads every adapter: only once there is something to run.
    const { createLlmClient, createSandbox } = await import('../../app/index.js');
    const llm = createLlmClient({ ...config, llmRecord: { ...config.llmRecord, recordDir: undefined } }, logger)!;
    await prepareImage(config, io);
    sandbox = await createSandbox({ ...config, dataDir }, logger);
    const interpreter = new Interpreter({
      llm,
      sandbox,
      store: new MemoryConversationStore({ sweepIntervalMs: 0 }),
      settings: config.llm,
      sandboxTimeoutMs: config.sandbox.timeoutMs,
      logger,
    });
    const result = await interpreter.handle({ threadKey, text: question, uploaded: [] });
    return { requests: server.received, outcome: result.outcome, text: result.text };
  } finally {
    await sandbox?.reset(threadKey).catch(() => undefined);
    await sandbox?.close().catch(() => undefined);
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
