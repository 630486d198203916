/**
 * OpenRouter: base URL `https://openrouter.ai/api/v1`, Bearer key, models named `<vendor>/<model>`.
 *
 * Sources read:
 * - openrouter.ai/docs/api/reference/streaming: SSE streams carry comments such as `: OPENROUTER PROCESSING` to keep
 *   the connection open; "errors that occur mid-generation still arrive as regular data: events with an error field".
 *   Its "Handling Errors During Streaming" section (copied in a repository found by `find_string`): once tokens have
 *   been sent the status stays 200 and the error comes as `{"id":"cmpl-abc123","object":"chat.completion.chunk",
 *   "created":1234567890,"model":"gpt-3.5-turbo","provider":"openai","error":{"code":"server_error","message":"Provider
 *   disconnected unexpectedly"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`, after which
 *   the stream is terminated.
 * - openrouter.ai/docs/api/reference/errors-and-debugging: `{"error":{"code":<number>,"message","metadata"?}}`, the
 *   HTTP status equal to `error.code` for errors before generation.
 * - No tool-capable provider: evalstate/fast-agent#122, bobrware/bobrchat#60: 404 `{"error":{"message":"No endpoints
 *   found that support tool use. To learn more about provider routing, visit:
 *   https://openrouter.ai/docs/guides/routing/provider-selection","code":404}}`.
 * - A provider's refusal passed through: charmbracelet/crush#279: 400 `{"error":{"message":"Provider returned error",
 *   "code":400,"metadata":{"raw":"<the provider's body as text>","provider_name":"Mistral"}}}`.
 * - Keys: musistudio/claude-code-router#227: 401 `{"error":{"message":"No auth credentials found","code":401}}`;
 *   NousResearch/hermes-agent#14637, Fosowl/agenticSeek#407: 401 `{"error":{"message":"User not found.","code":401}}`.
 * - Reasoning comes in a `reasoning` field (vllm-project/vllm#27752 cites OpenRouter as the model for it).
 * Not confirmed: which of Mistral's refusals reach the client through OpenRouter (the fake passes on the message
 *   order and tool call id ones, not Mistral's field validation, since OpenRouter writes the request Mistral sees);
 *   whether a usage chunk comes without `stream_options.include_usage` (the fake follows the option);
 *   `reasoning_details` (not reproduced); the generation id format (the fake uses `gen-<digits>-<alphanumerics>`).
 */
import {
  ALNUM,
  bearerConfig,
  bearerToken,
  type DialectCheck,
  dialectName,
  type ModelServerEntry,
  offersTools,
  randomChars,
  type ServerDialect,
  sseData,
} from './dialect.js';
import { mistralRefusal, mistralStyle } from './mistral.js';
import { streamStyle } from './reply-writer.js';

export interface OpenRouterOptions {
  /** The API key. @defaultValue 'sk-or-v1-test' */
  apiKey?: string;
  /** The model has a provider that takes tools. @defaultValue true */
  toolEndpoints?: boolean;
  /** Route to Mistral: its refusals come back wrapped, its ids and stream shape pass through. */
  upstream?: 'mistral';
}

/** OpenRouter's error body. */
export function openRouterError(status: number, message: string, metadata?: Record<string, unknown>): unknown {
  return { error: { message, code: status, ...(metadata ? { metadata } : {}) } };
}

/** OpenRouter in front of one provider. */
export function openrouter(options: OpenRouterOptions = {}): ServerDialect {
  const key = options.apiKey ?? 'sk-or-v1-test';
  const provider = options.upstream === 'mistral' ? 'Mistral' : 'OpenAI';
  const checks: DialectCheck[] = [
    (request) => {
      const token = bearerToken(request);
      if (!token) return { status: 401, body: openRouterError(401, 'No auth credentials found') };
      return token === key ? undefined : { status: 401, body: openRouterError(401, 'User not found.') };
    },
    ({ body }) =>
      options.toolEndpoints === false && offersTools(body)
        ? {
            status: 404,
            body: openRouterError(
              404,
              'No endpoints found that support tool use. To learn more about provider routing, visit: https://openrouter.ai/docs/guides/routing/provider-selection',
            ),
          }
        : undefined,
  ];
  if (options.upstream === 'mistral')
    checks.push(({ body }) => {
      const refusal = mistralRefusal(body, { validation: false });
      if (!refusal) return undefined;
      const metadata = { raw: JSON.stringify(refusal.body), provider_name: provider };
      return { status: refusal.status, body: openRouterError(refusal.status, 'Provider returned error', metadata) };
    });
  const upstream = options.upstream === 'mistral' ? mistralStyle() : {};
  return {
    name: dialectName('openrouter', options),
    basePath: '/api/v1',
    errorBody: (status, message) => openRouterError(status, message),
    checks,
    style: {
      refusalField: false,
      ...upstream,
      completionId: () => `gen-${Math.floor(Date.now() / 1000)}-${randomChars(ALNUM, 20)}`,
      reasoning: 'reasoning',
      envelope: () => ({ provider }),
      stream: streamStyle({
        ...upstream.stream,
        preamble: [': OPENROUTER PROCESSING', ': OPENROUTER PROCESSING'],
        usage: 'on-request',
        // The unified error chunk; the stream ends with it, without [DONE].
        midStreamError: (envelope, message) =>
          sseData({
            ...envelope,
            error: { code: 'server_error', message },
            choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }],
          }),
      }),
    },
  };
}

/** The catalogue entries of this server (test/fakes/model-servers/index.ts). */
export const OPENROUTER_SERVERS: ModelServerEntry[] = [
  {
    name: 'openrouter',
    server: 'OpenRouter',
    variant: 'openai/gpt-4o',
    dialect: () => openrouter(),
    threadlab: bearerConfig('/api/v1', 'openai/gpt-4o', 'sk-or-v1-test'),
    toolCalls: 'native',
    demands: [],
    reproduces: [
      '`: OPENROUTER PROCESSING` comments before the first chunk',
      'a `broken-stream` step: a chunk with a top-level `error` and finish_reason `error` inside the 200 stream, no [DONE]',
      '401 `No auth credentials found` / `User not found.`; errors `{"error":{"code":<number>,"message"}}`',
    ],
  },
  {
    name: 'openrouter-no-tool-endpoints',
    server: 'OpenRouter',
    variant: 'toolEndpoints: false',
    dialect: () => openrouter({ toolEndpoints: false }),
    threadlab: bearerConfig('/api/v1', 'deepseek/deepseek-r1:free', 'sk-or-v1-test'),
    toolCalls: 'refused',
    demands: ['send no `tools`'],
    reproduces: ['404 `No endpoints found that support tool use. …`'],
  },
  {
    name: 'openrouter-mistral',
    server: 'OpenRouter',
    variant: 'upstream: mistral',
    dialect: () => openrouter({ upstream: 'mistral' }),
    threadlab: bearerConfig('/api/v1', 'mistralai/mistral-large', 'sk-or-v1-test'),
    toolCalls: 'native',
    demands: ['an assistant message between a `tool` message and the next `user` message'],
    reproduces: ['400 `Provider returned error` with the provider body in `metadata.raw`'],
  },
];
