/**
 * DeepSeek's API: base URL `https://api.deepseek.com` (or `…/v1`), Bearer key, thinking mode.
 *
 * Sources read:
 * - api-docs.deepseek.com/guides/thinking_mode (2026 version, `deepseek-v4-*`): the thinking toggle
 *   `{"thinking": {"type": "enabled"|"disabled"}}` defaults to enabled; the chain of thought comes in
 *   `reasoning_content` beside `content`; "Between two user messages, if the model did not perform a tool call, the
 *   intermediate assistant's reasoning_content does not need to participate in the context concatenation. If passed to
 *   the API in subsequent turns, it will be ignored" and, if it performed a tool call, it "must participate in the
 *   context concatenation and must be passed back" in all subsequent requests; `temperature`, `top_p`,
 *   `presence_penalty`, `frequency_penalty` have no effect; `logprobs`, `top_logprobs` "will trigger an error". The
 *   earlier version of the page: thinking is on for `deepseek-reasoner` or with the `thinking` parameter on
 *   `deepseek-chat`.
 * - The refusal with `deepseek-v4-*`: JohnnyZ93/oai-compatible-copilot#215, borawong/AiMaMi#8, qwersyk/Newelle#404:
 *   400 `{"error":{"message":"The \`reasoning_content\` in the thinking mode must be passed back to the API.",
 *   "type":"invalid_request_error","param":null,"code":"invalid_request_error"}}` (some reports show the message without
 *   the backticks).
 * - With `deepseek-reasoner` (V3.2): abhigyanpatwari/GitNexus#43, zed-industries/zed#44301: 400 ``Missing
 *   `reasoning_content` field in the assistant message at message index 2. For more information, please refer to
 *   https://api-docs.deepseek.com/guides/thinking_mode#tool-calls``.
 * Not confirmed: the body shape around the `deepseek-reasoner` message (the fake uses the one above); the message of
 *   the `logprobs` refusal (the fake writes its own); the tool call id format (the fake uses `call_00_` + 24
 *   alphanumerics); key checks (the fake checks none); how an error midway through a stream is written.
 */
import { randomUUID } from 'node:crypto';
import {
  ALNUM,
  bearerConfig,
  callsTools,
  dialectName,
  type DialectRequest,
  type ModelServerEntry,
  randomChars,
  type Refusal,
  type ServerDialect,
  spansBetweenUserMessages,
  sseData,
} from './dialect.js';
import { streamStyle } from './reply-writer.js';

export type DeepSeekModel = 'deepseek-v4-flash' | 'deepseek-v4-pro' | 'deepseek-reasoner' | 'deepseek-chat';

export interface DeepSeekOptions {
  /** @defaultValue 'deepseek-v4-flash' */
  model?: DeepSeekModel;
}

/** DeepSeek's error body. */
export function deepseekError(_status: number, message: string): unknown {
  return { error: { message, type: 'invalid_request_error', param: null, code: 'invalid_request_error' } };
}

/** Whether thinking is on for this request. */
export function thinking(request: DialectRequest): boolean {
  const { model, thinking: toggle } = request.body as { model: string; thinking?: { type?: string } };
  if (model === 'deepseek-reasoner') return true;
  if (model === 'deepseek-chat') return toggle?.type === 'enabled';
  return toggle?.type !== 'disabled';
}

/** The index of the first assistant message that must carry `reasoning_content` and does not, if any. */
export function missingReasoning(request: DialectRequest): number | undefined {
  const { messages } = request.body;
  for (const [start, end] of spansBetweenUserMessages(messages)) {
    const span = messages.slice(start, end);
    if (!span.some(callsTools)) continue;
    const i = span.findIndex((m) => m.role === 'assistant' && typeof m.reasoning_content !== 'string');
    if (i >= 0) return start + i;
  }
  return undefined;
}

/** DeepSeek's API. */
export function deepseek(options: DeepSeekOptions = {}): ServerDialect {
  const refuse = (message: string): Refusal => ({ status: 400, body: deepseekError(400, message) });
  return {
    name: dialectName('deepseek', options),
    basePath: '',
    errorBody: deepseekError,
    checks: [
      (request) =>
        thinking(request) && (request.body.logprobs !== undefined || request.body.top_logprobs !== undefined)
          ? refuse('logprobs and top_logprobs are not supported in thinking mode.')
          : undefined,
      (request) => {
        if (!thinking(request)) return undefined;
        const index = missingReasoning(request);
        if (index === undefined) return undefined;
        return request.body.model === 'deepseek-reasoner'
          ? refuse(
              `Missing \`reasoning_content\` field in the assistant message at message index ${index}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`,
            )
          : refuse('The `reasoning_content` in the thinking mode must be passed back to the API.');
      },
    ],
    style: {
      completionId: () => randomUUID(),
      toolCallId: () => `call_00_${randomChars(ALNUM, 24)}`,
      reasoning: (request) => (thinking(request) ? 'reasoning_content' : 'omit'),
      refusalField: false,
      envelope: () => ({ system_fingerprint: 'fp_deepseek_fake' }),
      stream: streamStyle({ midStreamError: (_envelope, message) => sseData(deepseekError(500, message)) }),
    },
  };
}

/** The catalogue entries of this server (test/fakes/model-servers/index.ts). */
export const DEEPSEEK_SERVERS: ModelServerEntry[] = [
  {
    name: 'deepseek',
    server: 'DeepSeek',
    variant: 'deepseek-v4-flash (thinking on by default)',
    dialect: () => deepseek(),
    threadlab: bearerConfig('', 'deepseek-v4-flash', 'sk-deepseek-test'),
    toolCalls: 'native',
    demands: ['pass back `reasoning_content` on the assistant messages of every turn that called tools'],
    reproduces: ['400 ``The `reasoning_content` in the thinking mode must be passed back to the API.``'],
  },
  {
    name: 'deepseek-reasoner',
    server: 'DeepSeek',
    variant: 'deepseek-reasoner (V3.2)',
    dialect: () => deepseek({ model: 'deepseek-reasoner' }),
    threadlab: bearerConfig('', 'deepseek-reasoner', 'sk-deepseek-test'),
    toolCalls: 'native',
    demands: ['pass back `reasoning_content` on the assistant messages of every turn that called tools'],
    reproduces: ['400 ``Missing `reasoning_content` field in the assistant message at message index N. …``'],
  },
  {
    name: 'deepseek-chat',
    server: 'DeepSeek',
    variant: 'deepseek-chat (no thinking)',
    dialect: () => deepseek({ model: 'deepseek-chat' }),
    threadlab: bearerConfig('', 'deepseek-chat', 'sk-deepseek-test'),
    toolCalls: 'native',
    demands: [],
    reproduces: ['no reasoning unless `thinking: {type: "enabled"}`'],
  },
];
