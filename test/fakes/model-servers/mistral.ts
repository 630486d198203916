/**
 * Mistral's La Plateforme API: `POST https://api.mistral.ai/v1/chat/completions`, Bearer key.
 *
 * Sources read:
 * - Message order: datapizza-labs/datapizza-ai#98, BerriAI/litellm#17761, avante-corp/avante.nvim#2562: 400
 *   `{"object":"error","message":"Unexpected role 'user' after role 'tool'","type":"invalid_request_message_order",
 *   "param":null,"code":"3230"}`; charmbracelet/crush#279: the same for `Unexpected role 'tool' after role 'user'`.
 * - Tool call ids: nearai/ironclaw#1241, editor-code-assistant/eca#233: 400 `{"object":"error","message":"Tool call id
 *   was turn1_0 but must be a-z, A-Z, 0-9, with a length of 9.","type":"invalid_function_call","param":null,
 *   "code":"3280"}` (langchain-ai/langchain#24668 shows the 2024 form with `invalid_request_error`); Mistral's own ids
 *   are 9 alphanumerics (mistral-common "tool calling and messages").
 * - Unknown fields are refused by validation with 422 and FastAPI's `detail` inside `message`:
 *   avante-corp/avante.nvim#2347 (`stream_options.include_usage`, June 2025), editor-code-assistant/eca#231
 *   (`max_completion_tokens`), charmbracelet/crush#1590 (`messages[i].assistant.reasoning_content`):
 *   `{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","stream_options","include_usage"],
 *   "msg":"Extra inputs are not permitted","input":true}]},"type":"invalid_request_error","param":null,"code":null}`.
 * - A bad key: agent0ai/agent-zero#539, nextcloud/integration_openai#332: 401 `{"detail":"Unauthorized"}`.
 * Not confirmed: the order in which Mistral applies these checks (the fake: key, validation, ids, order); that every
 *   stream ends with usage on its last chunk without being asked (the fake does so, as the Mistral client libraries
 *   read it); the completion id format (the fake uses 32 hex); how an error midway through a stream is written.
 */
import {
  ALNUM,
  bearerConfig,
  bearerToken,
  dialectName,
  HEX,
  type ModelServerEntry,
  randomChars,
  type Refusal,
  type ReplyStyle,
  type ServerDialect,
  sseData,
} from './dialect.js';
import type { ChatRequestBody } from '../fake-openai-server.js';
import { streamStyle } from './reply-writer.js';

export interface MistralOptions {
  /** The API key. @defaultValue 'mistral-test-key' */
  apiKey?: string;
}

/** Mistral's error body. */
export function mistralError(
  status: number,
  message: unknown,
  type = 'invalid_request_error',
  code: string | null = null,
): unknown {
  return { object: 'error', message, type, param: null, code };
}

interface Violation {
  type: 'extra_forbidden';
  loc: Array<string | number>;
  msg: 'Extra inputs are not permitted';
  input: unknown;
}

/** The fields Mistral's request validation refuses, each as FastAPI reports it. */
export function extraFields(body: ChatRequestBody): Violation[] {
  const found: Violation[] = [];
  const add = (loc: Array<string | number>, input: unknown): void => {
    found.push({ type: 'extra_forbidden', loc: ['body', ...loc], msg: 'Extra inputs are not permitted', input });
  };
  if (body.stream_options && 'include_usage' in body.stream_options)
    add(['stream_options', 'include_usage'], body.stream_options.include_usage);
  if ('max_completion_tokens' in body) add(['max_completion_tokens'], body.max_completion_tokens);
  body.messages.forEach((message, i) => {
    if (message.role === 'assistant' && 'reasoning_content' in message)
      add(['messages', i, 'assistant', 'reasoning_content'], message.reasoning_content);
  });
  return found;
}

const VALID_ID = /^[a-zA-Z0-9]{9}$/;

/** The first tool call id Mistral refuses, from assistant tool calls and tool messages. */
function badToolCallId(body: ChatRequestBody): string | undefined {
  for (const message of body.messages) {
    const ids = [
      ...((message.tool_calls ?? []) as Array<{ id?: unknown }>).map((call) => call.id),
      ...(message.role === 'tool' ? [message.tool_call_id] : []),
    ];
    const bad = ids.find((id) => typeof id !== 'string' || !VALID_ID.test(id));
    if (bad !== undefined) return String(bad);
  }
  return undefined;
}

/**
 * Mistral's checks of a request other than the key. `validation: false` skips the 422 field checks, for a gateway
 * (OpenRouter) that builds the request Mistral sees from its own parameters.
 */
export function mistralRefusal(body: ChatRequestBody, { validation = true } = {}): Refusal | undefined {
  const violations = validation ? extraFields(body) : [];
  if (violations.length > 0) return { status: 422, body: mistralError(422, { detail: violations }) };
  const id = badToolCallId(body);
  if (id !== undefined)
    return {
      status: 400,
      body: mistralError(
        400,
        `Tool call id was ${id} but must be a-z, A-Z, 0-9, with a length of 9.`,
        'invalid_function_call',
        '3280',
      ),
    };
  for (let i = 1; i < body.messages.length; i++) {
    const [before, after] = [body.messages[i - 1]!.role, body.messages[i]!.role];
    if ((before === 'tool' && after === 'user') || (before === 'user' && after === 'tool'))
      return {
        status: 400,
        body: mistralError(
          400,
          `Unexpected role '${after}' after role '${before}'`,
          'invalid_request_message_order',
          '3230',
        ),
      };
  }
  return undefined;
}

/** Mistral's API. */
export function mistral(options: MistralOptions = {}): ServerDialect {
  const key = options.apiKey ?? 'mistral-test-key';
  return {
    name: dialectName('mistral', options),
    basePath: '/v1',
    errorBody: (status, message) => mistralError(status, message),
    checks: [
      (request) => (bearerToken(request) === key ? undefined : { status: 401, body: { detail: 'Unauthorized' } }),
      ({ body }) => mistralRefusal(body),
    ],
    style: mistralStyle(),
  };
}

/** How Mistral writes replies (shared with OpenRouter routing to Mistral). */
export function mistralStyle(): Partial<ReplyStyle> {
  return {
    completionId: () => randomChars(HEX, 32),
    toolCallId: () => randomChars(ALNUM, 9),
    refusalField: false,
    logprobsField: false,
    stream: streamStyle({
      toolCalls: 'whole',
      usage: 'finish-chunk',
      midStreamError: (_envelope, message) => sseData(mistralError(500, message, 'internal_error')),
    }),
  };
}

/** The catalogue entries of this server (test/fakes/model-servers/index.ts). */
export const MISTRAL_SERVERS: ModelServerEntry[] = [
  {
    name: 'mistral',
    server: 'Mistral',
    variant: 'default',
    dialect: () => mistral(),
    threadlab: bearerConfig('/v1', 'mistral-large-latest', 'mistral-test-key'),
    toolCalls: 'native',
    demands: [
      'no `stream_options.include_usage`, `max_completion_tokens` or assistant `reasoning_content` (422 extra_forbidden)',
      'an assistant message between a `tool` message and the next `user` message',
      'tool call ids of 9 alphanumerics',
    ],
    reproduces: [
      '401 `{"detail":"Unauthorized"}`',
      'errors `{"object":"error","message",…,"code":"3230"}`, validation errors with `message.detail`',
      'tool calls streamed whole; usage on the last chunk',
    ],
  },
];
