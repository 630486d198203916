/**
 * Ollama's OpenAI-compatible API: `ollama serve`, `POST /v1/chat/completions`, no API key.
 *
 * Sources read (ollama/ollama snapshot fb30760, 2026-08):
 * - `openai/openai.go`: `NewError` writes `{"error":{"message","type","param":null,"code":null}}` with type
 *   `invalid_request_error` for 400, `not_found_error` for 404, `api_error` otherwise. Messages and deltas carry the
 *   model's thinking in `reasoning`; `ToStreamChunks` sends a mixed response as a reasoning chunk, then a content or
 *   tool-call chunk; tool calls arrive whole (arguments re-marshalled from the parsed object) with an `index`;
 *   `FinishChunk` sends `finish_reason` on its own chunk with an empty delta and turns `stop` into `tool_calls` after a
 *   tool call; `system_fingerprint` is `fp_ollama`; no `refusal`, no `logprobs` unless asked for.
 * - `middleware/openai.go`: native errors are rewritten through `NewError`; the usage chunk (`choices: []`) is sent
 *   only with `stream_options.include_usage`; chat ids are `chatcmpl-<rand.Intn(999)>`.
 * - `server/routes.go`: `toolCallId()` is `call_` + 8 of `[a-z0-9]`; `handleScheduleError` answers a missing capability
 *   with 400 and an unknown model with 404 `model "<name>" not found, try pulling it first`.
 * - `server/images.go`: `CheckCapabilities` fails with `<model name> does not support tools`, the name being the full
 *   registry name (`registry.ollama.ai/library/llama3:latest`).
 * - Issues: ollama/ollama#5793 (`llama3 does not support tools`, then still `api_error` in 0.2.7), #14795
 *   (`registry.ollama.ai/library/Qwen3.5:0.8b does not support tools`), pydantic/pydantic-ai#703 (same through /v1).
 * - Context: `server/prompt.go` `chatPrompt` "truncates any messages that exceed the context window of the model,
 *   making sure to always include 1) the latest message and 2) system messages": older messages are dropped from the
 *   front, silently, with only a debug log line ("truncating native chat messages which exceed context length",
 *   ollama/ollama#18509; "truncating input prompt" limit=2048, #10368); the answer is a 200 whose usage counts the
 *   truncated prompt (#17889). The window is `num_ctx`: 4096 by default since v0.6.4 (2048 before), whatever the model's
 *   own `context_length`. `POST /api/show` (docs/api.md) gives `model_info["<arch>.context_length"]` and `parameters`
 *   (with `num_ctx` only when the Modelfile sets it); `GET /api/ps` lists loaded models with the `context_length`
 *   they run with (what `ollama ps` shows as CONTEXT, #17889).
 * Not confirmed: the model name in a response (the fake echoes the request's); what happens to a tool call the model
 * wrote as malformed JSON (the fake passes it on as scripted); how an error midway through a stream is written (the
 * fake sends `NewError`'s body as a data event).
 */
import { randomInt } from 'node:crypto';
import type { ChatRequestBody } from '../fake-openai-server.js';
import {
  dialectName,
  localConfig,
  LOWER_ALNUM,
  type ModelServerEntry,
  offersTools,
  promptTokens,
  randomChars,
  type Refusal,
  type ServerDialect,
  sseData,
} from './dialect.js';
import { streamStyle } from './reply-writer.js';

export interface OllamaOptions {
  /** The model's template supports tools. @defaultValue true */
  tools?: boolean;
  /** The model has been pulled; false answers every request with 404. @defaultValue true */
  pulled?: boolean;
  /**
   * The `num_ctx` the model is loaded with, in the fake's tokens (dialect.ts promptTokens); a longer prompt loses its
   * oldest messages silently. @defaultValue 40960 (OLLAMA_CONTEXT_LENGTH raised to the model's own; Ollama's own default is 4096)
   */
  numCtx?: number;
  /** `num_ctx` is a parameter of the model's Modelfile (shown by /api/show) rather than the server's default. @defaultValue false */
  numCtxParameter?: boolean;
  /** The model is loaded, so `/api/ps` lists it with its context length. @defaultValue true */
  loaded?: boolean;
}

type Message = ChatRequestBody['messages'][number];

/** What Ollama's chatPrompt keeps of `messages` within `numCtx`: system messages, the latest message, the newest others. */
function truncated(body: ChatRequestBody, numCtx: number): ChatRequestBody {
  const messages = [...body.messages];
  const droppable = (m: Message | undefined, i: number): boolean => m?.role !== 'system' && i < messages.length - 1;
  while (promptTokens({ ...body, messages }) > numCtx) {
    const oldest = messages.findIndex(droppable);
    if (oldest < 0) break;
    messages.splice(oldest, 1);
  }
  return messages.length === body.messages.length ? body : { ...body, messages };
}

/** Ollama's error body for `status`. */
export function ollamaError(status: number, message: string): unknown {
  const type = status === 400 ? 'invalid_request_error' : status === 404 ? 'not_found_error' : 'api_error';
  return { error: { message, type, param: null, code: null } };
}

/** `llama3` → `registry.ollama.ai/library/llama3:latest`, as Ollama names a model in its errors. */
export function ollamaFullName(model: string): string {
  const withTag = /:[^/]+$/.test(model) ? model : `${model}:latest`;
  const parts = withTag.split('/');
  if (parts.length === 1) return `registry.ollama.ai/library/${withTag}`;
  if (parts.length === 2) return `registry.ollama.ai/${withTag}`;
  return withTag;
}

/** Ollama's /v1 API for a model with (or without) tool support. */
export function ollama(options: OllamaOptions = {}): ServerDialect {
  const refuse = (status: number, message: string): Refusal => ({ status, body: ollamaError(status, message) });
  const numCtx = options.numCtx ?? 40960;
  const arch = 'qwen3';
  const show = (model: unknown): Refusal => {
    if (options.pulled === false) return { status: 404, body: { error: `model '${String(model)}' not found` } };
    const parameters = [
      ...(options.numCtxParameter ? [`num_ctx                        ${numCtx}`] : []),
      'temperature                    0.6',
      'top_p                          0.95',
    ].join('\n');
    const details = { format: 'gguf', family: arch, parameter_size: '8.2B', quantization_level: 'Q4_K_M' };
    const info = { 'general.architecture': arch, [`${arch}.context_length`]: 40960, [`${arch}.block_count`]: 36 };
    return { status: 200, body: { parameters, details, model_info: info, capabilities: ['completion', 'tools'] } };
  };
  return {
    name: dialectName('ollama', options),
    basePath: '/v1',
    errorBody: ollamaError,
    checks: [
      ({ body }) =>
        options.pulled === false ? refuse(404, `model "${body.model}" not found, try pulling it first`) : undefined,
      ({ body }) =>
        options.tools === false && offersTools(body)
          ? refuse(400, `${ollamaFullName(body.model)} does not support tools`)
          : undefined,
    ],
    routes: [
      ({ method, path, body }) =>
        method === 'POST' && path === '/api/show'
          ? show(typeof body === 'object' && body !== null ? (body as { model?: unknown }).model : undefined)
          : undefined,
      ({ method, path }) => {
        if (method !== 'GET' || path !== '/api/ps') return undefined;
        const name = 'qwen3:8b';
        const loaded = { name, model: name, size: 6_300_000_000, details: {}, context_length: numCtx };
        return { status: 200, body: { models: options.loaded === false || options.pulled === false ? [] : [loaded] } };
      },
    ],
    prompt: ({ body }) => truncated(body, numCtx),
    style: {
      completionId: () => `chatcmpl-${randomInt(999)}`,
      toolCallId: () => `call_${randomChars(LOWER_ALNUM, 8)}`,
      reasoning: 'reasoning',
      refusalField: false,
      logprobsField: false,
      envelope: () => ({ system_fingerprint: 'fp_ollama' }),
      stream: streamStyle({
        toolCalls: 'whole',
        midStreamError: (_envelope, message) => sseData(ollamaError(500, message)),
      }),
    },
    // Ollama's message content is a string, empty beside tool calls, never null; usage counts what the model saw.
    shapeReply: (draft, request) => ({
      ...draft,
      content: draft.content ?? '',
      ...(options.numCtx !== undefined && draft.usage
        ? { usage: { ...draft.usage, prompt_tokens: promptTokens(request.body) } }
        : {}),
    }),
  };
}

/** The catalogue entries of this server (test/fakes/model-servers/index.ts). */
export const OLLAMA_SERVERS: ModelServerEntry[] = [
  {
    name: 'ollama',
    server: 'Ollama',
    variant: 'default',
    dialect: () => ollama(),
    threadlab: localConfig('/v1', 'qwen3:8b'),
    toolCalls: 'native',
    demands: [],
    reproduces: [
      'reasoning in `reasoning` on message and delta',
      'tool calls streamed whole, ids `call_` + 8 of [a-z0-9]',
      'content "" (never null) beside tool calls; `system_fingerprint: fp_ollama`; no `refusal`/`logprobs`',
      'usage chunk only with stream_options.include_usage',
      'errors `{"error":{"message","type","param":null,"code":null}}`',
    ],
  },
  {
    name: 'ollama-no-tools',
    server: 'Ollama',
    variant: 'tools: false',
    dialect: () => ollama({ tools: false }),
    threadlab: localConfig('/v1', 'llama3'),
    toolCalls: 'refused',
    demands: ['send no `tools`'],
    reproduces: ['400 `registry.ollama.ai/library/llama3:latest does not support tools` (invalid_request_error)'],
  },
  {
    name: 'ollama-not-pulled',
    server: 'Ollama',
    variant: 'pulled: false',
    dialect: () => ollama({ pulled: false }),
    threadlab: localConfig('/v1', 'qwen3:8b'),
    toolCalls: 'refused',
    demands: ['a model that has been pulled'],
    reproduces: ['404 `model "qwen3:8b" not found, try pulling it first` (not_found_error) to every request'],
  },
];
