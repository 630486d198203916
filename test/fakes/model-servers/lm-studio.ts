/**
 * LM Studio's OpenAI-compatible server (`lms server start`, port 1234): `POST /v1/chat/completions`.
 *
 * Sources read:
 * - lmstudio-ai/docs (snapshot c6854fb, 2026-04) `1_developer/3_openai-compat/tools.mdx`: the example response has
 *   `id: "chatcmpl-gb1t1uqzefudice8ntxd9i"`, a numeric tool call id (`"365174485"`), no `content` beside
 *   `tool_calls`, `logprobs: null` and `system_fingerprint` equal to the model; "If LM Studio cannot parse any correctly
 *   formatted tool calls, it will simply return the response to the standard `response.choices[0].message.content`
 *   field" (models without native tool use get the default `[TOOL_REQUEST]{…}[END_TOOL_REQUEST]` format).
 * - lmstudio-ai/docs `1_developer/api-changelog.md` (0.3.9): reasoning in a separate `reasoning_content` field.
 * - lmstudio-ai/docs `1_developer/0_core/authentication.mdx`: from 0.4.0 the server can require an API token
 *   (`Authorization: Bearer $LM_API_TOKEN`); off by default.
 * - Error bodies are a bare string under `error`: issue t59688/arboris-novel#23 shows
 *   `400 {'error': "'response_format.type' must be 'json_schema' or 'text'"}`.
 * - A missing token: agustif/opencode-lmstudio#41 logs `{"error":{"type":"invalid_request","code":"invalid_api_key",
 *   "message":"An LM Studio API token is required to make requests to this server, but none was provided using the
 *   Authorization header using the 'Bearer' scheme (i.e., 'Authorization: Bearer $LM_API_TOKEN'). Learn more at:
 *   https://lmstudio.ai/docs/developer/core/authentication."}}` (seen on /api/v1; the fake assumes /v1 alike).
 * Not confirmed: the message for a wrong (rather than missing) token — the fake uses the same body shape with a message
 * of its own; how LM Studio streams tool call arguments (the fake streams them in pieces); how an unparsed default-format
 * call looks exactly (the fake returns an unterminated `[TOOL_REQUEST]` block, one kind of improper format); how an
 * error midway through a stream is written.
 */
import {
  bearerConfig,
  bearerToken,
  dialectName,
  localConfig,
  LOWER_ALNUM,
  type ModelServerEntry,
  randomChars,
  type Refusal,
  type ServerDialect,
  sseData,
} from './dialect.js';
import { streamStyle } from './reply-writer.js';

export interface LmStudioOptions {
  /** Require this API token (LM Studio 0.4+, Server Settings › Require Authentication). */
  token?: string;
  /** The loaded model has no native tool use and writes calls LM Studio cannot parse. @defaultValue false */
  unparsedToolCalls?: boolean;
}

/** LM Studio's error body: the message as a string. */
export function lmStudioError(_status: number, message: string): unknown {
  return { error: message };
}

const MISSING_TOKEN =
  "An LM Studio API token is required to make requests to this server, but none was provided using the Authorization header using the 'Bearer' scheme (i.e., 'Authorization: Bearer $LM_API_TOKEN'). Learn more at: https://lmstudio.ai/docs/developer/core/authentication.";

function tokenRefusal(message: string): Refusal {
  return { status: 401, body: { error: { type: 'invalid_request', code: 'invalid_api_key', message } } };
}

/** LM Studio serving one loaded model. */
export function lmStudio(options: LmStudioOptions = {}): ServerDialect {
  return {
    name: dialectName('lmStudio', options),
    basePath: '/v1',
    errorBody: lmStudioError,
    checks: [
      (request) => {
        if (options.token === undefined) return undefined;
        const token = bearerToken(request);
        if (token === undefined) return tokenRefusal(MISSING_TOKEN);
        return token === options.token ? undefined : tokenRefusal('The provided LM Studio API token is invalid.');
      },
      ({ body }) => {
        const format = body.response_format as { type?: unknown } | undefined;
        return format && format.type !== 'json_schema' && format.type !== 'text'
          ? { status: 400, body: lmStudioError(400, "'response_format.type' must be 'json_schema' or 'text'") }
          : undefined;
      },
    ],
    style: {
      completionId: () => `chatcmpl-${randomChars(LOWER_ALNUM, 20)}`,
      toolCallId: () => randomChars('0123456789', 9),
      reasoning: 'reasoning_content',
      refusalField: false,
      omitNullContent: true,
      envelope: (request) => ({ system_fingerprint: request.body.model }),
      stream: streamStyle({ midStreamError: (_envelope, message) => sseData(lmStudioError(500, message)) }),
    },
    shapeReply: (draft) => {
      if (!options.unparsedToolCalls || draft.toolCalls.length === 0) return draft;
      const text = draft.toolCalls
        .map((call) => `[TOOL_REQUEST]{"name": "${call.name}", "arguments": ${call.arguments}`)
        .join('\n');
      return {
        ...draft,
        content: [draft.content, text].filter(Boolean).join('\n'),
        toolCalls: [],
        finishReason: 'stop',
      };
    },
  };
}

/** The catalogue entries of this server (test/fakes/model-servers/index.ts). */
export const LM_STUDIO_SERVERS: ModelServerEntry[] = [
  {
    name: 'lm-studio',
    server: 'LM Studio',
    variant: 'default',
    dialect: () => lmStudio(),
    threadlab: localConfig('/v1', 'qwen2.5-7b-instruct'),
    toolCalls: 'native',
    demands: [],
    reproduces: [
      'errors `{"error":"<message>"}` (a string), e.g. 400 for `response_format.type` json_object',
      'no `content` beside tool calls; numeric tool call ids; `system_fingerprint` = model',
      'reasoning in `reasoning_content`',
    ],
  },
  {
    name: 'lm-studio-auth',
    server: 'LM Studio',
    variant: 'token: "lm-studio-token" (0.4+, Require Authentication)',
    dialect: () => lmStudio({ token: 'lm-studio-token' }),
    threadlab: bearerConfig('/v1', 'qwen2.5-7b-instruct', 'lm-studio-token'),
    toolCalls: 'native',
    demands: ['the API token as a Bearer token'],
    reproduces: ['401 `{"error":{"type":"invalid_request","code":"invalid_api_key","message":…}}`'],
  },
  {
    name: 'lm-studio-unparsed',
    server: 'LM Studio',
    variant: 'unparsedToolCalls: true (model without native tool use)',
    dialect: () => lmStudio({ unparsedToolCalls: true }),
    threadlab: localConfig('/v1', 'gemma-2-2b-it'),
    toolCalls: 'text',
    demands: ['read a `[TOOL_REQUEST]{…}` call from the content'],
    reproduces: ['a call LM Studio could not parse left in content, finish_reason `stop`'],
  },
];
