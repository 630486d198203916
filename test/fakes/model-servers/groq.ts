/**
 * GroqCloud's OpenAI-compatible API: base URL `https://api.groq.com/openai/v1`, Bearer key.
 *
 * Sources read:
 * - console.groq.com/docs/reasoning: `reasoning_format` `parsed` puts reasoning in `message.reasoning`, `raw` in
 *   `<think>` tags in the content, `hidden` drops it; "The format defaults to raw or parsed when JSON mode or tool use
 *   are enabled as those modes do not support raw. If reasoning is explicitly set to raw with JSON mode or tool use
 *   enabled, we will return a 400 error"; `include_reasoning: false` leaves it out.
 * - A generation whose tool call fails validation: groq/groq-typescript#28, huggingface/smolagents#1119: 400
 *   `{"error":{"message":"Failed to call a function. Please adjust your prompt. See 'failed_generation' for more
 *   details.","type":"invalid_request_error","code":"tool_use_failed","failed_generation":"<the model's text>"}}`;
 *   when streaming (anomalyco/opencode#1018) it arrives as `event: error` with `data: {"error":{…,"status_code":400}}`
 *   and `failed_generation` "Tool use failed: JSON does not match the expected schema for tool calls".
 * - Unknown fields are refused: fanenr/chatbot#21 (`property 'store' is unsupported, did you mean 'stop'?`),
 *   NousResearch/hermes-agent#11089, janhq/jan#8136: 400 `'messages.4' : for 'role:assistant' the following must be
 *   satisfied[('messages.4' : property 'reasoning_content' is unsupported)]`, `type: invalid_request_error`, no code.
 * - A bad key: ag5826000/resume-commentor#4: 401 `{"error":{"message":"Invalid API Key","type":"invalid_request_error",
 *   "code":"invalid_api_key"}}`.
 * - Tool call ids such as `call_cmfz` (BerriAI/litellm#11001).
 * Not confirmed: the message of the `raw`-with-tools refusal (the fake writes its own); whether assistant `reasoning`
 *   is still refused (karthink/gptel#774 saw it refused in April 2025; the fake accepts it); the HTTP status of the
 *   streamed `tool_use_failed` (the fake sends it after a 200); the exact `x_groq` fields (the fake puts `id` on every
 *   chunk and `usage` on the last); whether tool calls stream whole (the fake: whole); how errors other than
 *   `tool_use_failed` are written midway through a stream (the fake uses the same `event: error`).
 */
import {
  bearerConfig,
  bearerToken,
  dialectName,
  type DialectRequest,
  isJsonObject,
  LOWER_ALNUM,
  type ModelServerEntry,
  offersTools,
  randomChars,
  type ReasoningPlacement,
  type Refusal,
  type ServerDialect,
  sseData,
} from './dialect.js';
import { streamStyle } from './reply-writer.js';

export interface GroqOptions {
  /** The API key. @defaultValue 'gsk_test_key' */
  apiKey?: string;
}

/** Groq's error body. */
export function groqError(_status: number, message: string, code?: string): Record<string, unknown> {
  return { error: { message, type: 'invalid_request_error', ...(code ? { code } : {}) } };
}

const TOOL_USE_FAILED =
  "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.";

const refuse = (message: string, status = 400): Refusal => ({ status, body: groqError(status, message) });

/** Models that think; others never return reasoning. */
const REASONING_MODELS = /qwen3|gpt-oss|deepseek-r1|qwq/i;

function placement(request: DialectRequest): ReasoningPlacement {
  const { body } = request;
  if (!REASONING_MODELS.test(body.model) || body.include_reasoning === false) return 'omit';
  const format = body.reasoning_format ?? (offersTools(body) ? 'parsed' : 'raw');
  return format === 'parsed' ? 'reasoning' : format === 'raw' ? 'think-tags' : 'omit';
}

/** GroqCloud. */
export function groq(options: GroqOptions = {}): ServerDialect {
  const key = options.apiKey ?? 'gsk_test_key';
  const requestId = `req_${randomChars(LOWER_ALNUM, 26)}`;
  return {
    name: dialectName('groq', options),
    basePath: '/openai/v1',
    errorBody: groqError,
    checks: [
      (request) =>
        bearerToken(request) === key
          ? undefined
          : { status: 401, body: groqError(401, 'Invalid API Key', 'invalid_api_key') },
      ({ body }) => {
        const i = body.messages.findIndex((m) => m.role === 'assistant' && 'reasoning_content' in m);
        return i < 0
          ? undefined
          : refuse(
              `'messages.${i}' : for 'role:assistant' the following must be satisfied[('messages.${i}' : property 'reasoning_content' is unsupported)]`,
            );
      },
      ({ body }) =>
        body.reasoning_format === 'raw' && offersTools(body)
          ? refuse('reasoning_format=raw is not supported with tool use or JSON mode')
          : undefined,
    ],
    style: {
      completionId: () => `chatcmpl-${randomChars(LOWER_ALNUM, 8)}-${randomChars(LOWER_ALNUM, 4)}`,
      toolCallId: () => `call_${randomChars(LOWER_ALNUM, 4)}`,
      reasoning: placement,
      refusalField: false,
      envelope: () => ({ system_fingerprint: 'fp_groq_fake', x_groq: { id: requestId } }),
      stream: streamStyle({
        toolCalls: 'whole',
        finishExtra: (usage) => ({
          x_groq: {
            id: requestId,
            ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
          },
        }),
        midStreamError: (_envelope, message) =>
          `event: error\n${sseData({ error: { message, type: 'internal_server_error' } })}`,
      }),
    },
    shapeReply: (draft, { body }) => {
      const offered = new Set((body.tools ?? []).map((tool) => tool.function.name));
      const bad = draft.toolCalls.find((call) => !offered.has(call.name) || !isJsonObject(call.arguments));
      if (!bad) return draft;
      // Groq checks the generated call against the tools; the raw generation comes back in `failed_generation`.
      const generation = `${bad.name}${bad.arguments}</function>`;
      const failure = groqError(400, TOOL_USE_FAILED, 'tool_use_failed');
      const error = { ...(failure.error as object), failed_generation: generation };
      return {
        kind: 'failure',
        failure: { status: 400, body: { error } },
        streamed: `event: error\n${sseData({ error: { ...error, status_code: 400 } })}`,
      };
    },
  };
}

/** The catalogue entries of this server (test/fakes/model-servers/index.ts). */
export const GROQ_SERVERS: ModelServerEntry[] = [
  {
    name: 'groq',
    server: 'Groq',
    variant: 'qwen/qwen3-32b (reasoning)',
    dialect: () => groq(),
    threadlab: bearerConfig('/openai/v1', 'qwen/qwen3-32b', 'gsk_test_key'),
    toolCalls: 'native',
    demands: ['no `reasoning_content` on assistant messages', 'no `reasoning_format: raw` with tools'],
    reproduces: [
      'reasoning in `reasoning` with tools (`parsed`), in `<think>` tags without (`raw`)',
      'a tool call that fails validation: 400 `tool_use_failed` with `failed_generation`, or `event: error` when streaming',
      '401 `Invalid API Key`; `x_groq` with usage on the last chunk',
    ],
  },
  {
    name: 'groq-llama',
    server: 'Groq',
    variant: 'llama-3.3-70b-versatile',
    dialect: () => groq(),
    threadlab: bearerConfig('/openai/v1', 'llama-3.3-70b-versatile', 'gsk_test_key'),
    toolCalls: 'native',
    demands: ['no `reasoning_content` on assistant messages'],
    reproduces: ['no reasoning; tool_use_failed as above'],
  },
];
