/**
 * The Gemini API's OpenAI compatibility layer: base URL `https://generativelanguage.googleapis.com/v1beta/openai/`,
 * `POST /v1beta/openai/chat/completions`, the Gemini API key as a Bearer token.
 *
 * Sources read:
 * - ai.google.dev/gemini-api/docs/openai (OpenAI compatibility): base URL, Bearer key, model names such as
 *   `gemini-3-flash-preview`.
 * - ai.google.dev/gemini-api/docs/thought-signatures: Gemini 3 returns a thought signature with every function-call
 *   response — on the first call of parallel calls, on each call of sequential steps — and "you must pass back thought
 *   signatures during function calling, otherwise you will get a validation error (4xx status code)"; validation covers
 *   the current turn (since the last user message); Gemini 2.5 returns signatures without enforcing them.
 * - The OpenAI layer carries the signature as `extra_content: {google: {thought_signature}}` on the tool call:
 *   openai/codex#7586, crmne/ruby_llm#588, continuedev/continue#8865.
 * - The refusal, from discuss.ai.google.dev/t/openai-api-compatibility-broken-due-to-thought-signature-on-gemini-3-pro-
 *   preview/109823 (copied as posted, lower-case "please" included): 400 `[{"error":{"code":400,"message":"Function call
 *   is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing
 *   thought_signature may lead to degraded model performance. Additional data, function call
 *   `default_api:mcp_everything_echo` , position 2. please refer to
 *   https://ai.google.dev/gemini-api/docs/thought-signatures for more details.","status":"INVALID_ARGUMENT"}}]`.
 * - Errors are a JSON array of one `{"error":{code, message, status}}`: Simpleyyt/ai-manus#101, FuzzAnything/
 *   PromptFuzz#42; a bad key (continuedev/continue#8516): 400 `API key not valid. Please pass a valid API key.` with
 *   `details` `[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID",…}]`.
 * - googleapis/python-genai#2868 (2026-08): streaming answers a tool call with `finish_reason: "stop"` while the same
 *   request unstreamed gives `"tool_calls"`. softwaremill/sttp-ai#338: `model` is reported as `models/<name>`.
 * Not confirmed: what "position" counts (the fake gives the assistant message's index in `messages`); whether a
 *   signature that was never issued is refused (the fake checks presence only); the tool call id format (the fake uses
 *   `function-call-<digits>`); how tool calls are chunked when streamed (the fake sends each whole); how an error
 *   midway through a stream is written (the fake sends the error array as a data event).
 */
import {
  bearerConfig,
  bearerToken,
  currentTurnStart,
  dialectName,
  type ModelServerEntry,
  opaqueToken,
  randomChars,
  type Refusal,
  type ServerDialect,
  sseData,
} from './dialect.js';
import { streamStyle } from './reply-writer.js';

export interface GeminiOptions {
  /** The model; `gemini-3*` models enforce thought signatures. @defaultValue 'gemini-3-flash-preview' */
  model?: string;
  /** The Gemini API key. @defaultValue 'gemini-test-key' */
  apiKey?: string;
}

const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/** Gemini's error body: an array holding one Google RPC error. */
export function geminiError(status: number, message: string, details?: unknown[]): unknown {
  return [{ error: { code: status, message, status: STATUS[status] ?? 'UNKNOWN', ...(details ? { details } : {}) } }];
}

const BAD_KEY = 'API key not valid. Please pass a valid API key.';

function badKey(): Refusal {
  return {
    status: 400,
    body: geminiError(400, BAD_KEY, [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
        metadata: { service: 'generativelanguage.googleapis.com' },
      },
      { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message: BAD_KEY },
    ]),
  };
}

interface WireToolCall {
  function?: { name?: string };
  extra_content?: { google?: { thought_signature?: unknown } };
}

/** The thought signature refusal for the first call of the assistant message at `position`. */
export function missingSignature(name: string, position: number): Refusal {
  const message = `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${position}. please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;
  return { status: 400, body: geminiError(400, message) };
}

/** Gemini through its OpenAI compatibility layer. */
export function gemini(options: GeminiOptions = {}): ServerDialect {
  const key = options.apiKey ?? 'gemini-test-key';
  const enforces = (model: string): boolean => model.startsWith('gemini-3');
  return {
    name: dialectName('gemini', options),
    basePath: '/v1beta/openai',
    errorBody: (status, message) => geminiError(status, message),
    checks: [
      (request) => (bearerToken(request) === key ? undefined : badKey()),
      ({ body }) => {
        if (!enforces(body.model)) return undefined;
        for (let i = currentTurnStart(body.messages); i < body.messages.length; i++) {
          const message = body.messages[i];
          const [first] = (message?.role === 'assistant' ? (message.tool_calls ?? []) : []) as WireToolCall[];
          if (first && typeof first.extra_content?.google?.thought_signature !== 'string')
            return missingSignature(first.function?.name ?? '', i);
        }
        return undefined;
      },
    ],
    style: {
      completionId: () => randomChars('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-', 22),
      toolCallId: () => `function-call-${randomChars('0123456789', 20)}`,
      refusalField: false,
      logprobsField: false,
      envelope: (request) => ({ model: `models/${request.body.model}` }),
      stream: streamStyle({
        toolCalls: 'whole',
        midStreamError: (_envelope, message) => sseData(geminiError(500, message)),
      }),
    },
    shapeReply: (draft, request) => {
      if (draft.toolCalls.length === 0) return draft;
      // One signature per response, on its first function call.
      const [first, ...rest] = draft.toolCalls;
      const signed = { ...first!, extra: { extra_content: { google: { thought_signature: opaqueToken() } } } };
      const finishReason = request.body.stream ? 'stop' : draft.finishReason;
      return { ...draft, toolCalls: [signed, ...rest], finishReason };
    },
  };
}

/** The catalogue entries of this server (test/fakes/model-servers/index.ts). */
export const GEMINI_SERVERS: ModelServerEntry[] = [
  {
    name: 'gemini',
    server: "Gemini's OpenAI-compatible API",
    variant: 'gemini-3-flash-preview',
    dialect: () => gemini(),
    threadlab: bearerConfig('/v1beta/openai', 'gemini-3-flash-preview', 'gemini-test-key'),
    toolCalls: 'native',
    demands: ['pass back `extra_content.google.thought_signature` on the first tool call of each step of the turn'],
    reproduces: [
      'errors as a JSON array `[{"error":{code,message,status}}]`; a bad key is 400 API_KEY_INVALID',
      '400 `Function call is missing a thought_signature in functionCall parts. …` when not passed back',
      'streamed tool calls end with finish_reason `stop` (non-streamed: `tool_calls`)',
      '`model` reported as `models/<name>`',
    ],
  },
  {
    name: 'gemini-2.5',
    server: "Gemini's OpenAI-compatible API",
    variant: 'gemini-2.5-flash',
    dialect: () => gemini({ model: 'gemini-2.5-flash' }),
    threadlab: bearerConfig('/v1beta/openai', 'gemini-2.5-flash', 'gemini-test-key'),
    toolCalls: 'native',
    demands: [],
    reproduces: ['thought signatures sent but not enforced'],
  },
];
