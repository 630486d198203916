/**
 * OpenAI's reasoning models (o-series, gpt-5) on `POST https://api.openai.com/v1/chat/completions`.
 *
 * Sources read:
 * - platform.openai.com/docs/guides/reasoning: reasoning models take `max_completion_tokens` (reasoning tokens count
 *   against it) and report `usage.completion_tokens_details.reasoning_tokens`; the reasoning itself is not returned by
 *   Chat Completions.
 * - `max_tokens`: teilomillet/gollm#33 (o1, o3-mini), griptape-ai/ComfyUI-Griptape#312 (gpt-5),
 *   microsoft/vscode-copilot-release#8065: 400 `{"error":{"message":"Unsupported parameter: 'max_tokens' is not
 *   supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error",
 *   "param":"max_tokens","code":"unsupported_parameter"}}`.
 * - `temperature`: leafo/lua-openai#12 (o1-mini), BeehiveInnovations/pal-mcp-server#78 (o3), microsoft/vscode#261278:
 *   400 `Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is
 *   supported.` (`param: temperature`, `code: unsupported_value`); the same report and lobehub/lobehub#5690 (o3-mini):
 *   `Unsupported parameter: 'temperature' is not supported with this model.` (`code: unsupported_parameter`) whatever
 *   the value.
 * Not confirmed: which of two unsupported parameters OpenAI names first (the fake checks `max_tokens` first); key
 *   checks (the fake checks none).
 */
import { bearerConfig, dialectName, type ModelServerEntry, type Refusal, type ServerDialect } from './dialect.js';

export interface OpenAiReasoningOptions {
  /** `o3-mini` and `o1` refuse `temperature` outright; the others (o3, o4-mini, gpt-5…) accept only 1. @defaultValue 'o4-mini' */
  model?: string;
}

/** OpenAI's error body. */
export function openAiError(message: string, param: string | null = null, code: string | null = null): unknown {
  return { error: { message, type: 'invalid_request_error', param, code } };
}

const refuse = (message: string, param: string, code: string): Refusal => ({
  status: 400,
  body: openAiError(message, param, code),
});

/** Models that refuse any `temperature`, rather than any but 1. */
const NO_TEMPERATURE = /^(o1|o1-preview|o3-mini)(-\d{4}-\d{2}-\d{2})?$/;

/** An OpenAI reasoning model. */
export function openaiReasoning(options: OpenAiReasoningOptions = {}): ServerDialect {
  return {
    name: dialectName('openaiReasoning', options),
    basePath: '/v1',
    errorBody: (status, message) => openAiError(message, null, status === 429 ? 'rate_limit_exceeded' : null),
    checks: [
      ({ body }) =>
        body.max_tokens !== undefined
          ? refuse(
              "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
              'max_tokens',
              'unsupported_parameter',
            )
          : undefined,
      ({ body }) => {
        const { temperature } = body;
        if (temperature === undefined || temperature === null) return undefined;
        if (NO_TEMPERATURE.test(body.model))
          return refuse(
            "Unsupported parameter: 'temperature' is not supported with this model.",
            'temperature',
            'unsupported_parameter',
          );
        return temperature === 1
          ? undefined
          : refuse(
              `Unsupported value: 'temperature' does not support ${String(temperature)} with this model. Only the default (1) value is supported.`,
              'temperature',
              'unsupported_value',
            );
      },
    ],
    style: {
      usageExtra: (usage) => ({
        completion_tokens_details: { reasoning_tokens: Math.floor(usage.completion_tokens / 2) },
      }),
    },
  };
}

/** The catalogue entries of this server (test/fakes/model-servers/index.ts). */
export const OPENAI_REASONING_SERVERS: ModelServerEntry[] = [
  {
    name: 'openai-reasoning',
    server: "OpenAI's reasoning models",
    variant: 'o4-mini',
    dialect: () => openaiReasoning(),
    threadlab: bearerConfig('/v1', 'o4-mini', 'sk-openai-test'),
    toolCalls: 'native',
    demands: ['`max_completion_tokens`, not `max_tokens`', 'no `temperature` other than 1'],
    reproduces: [
      '400 unsupported_parameter / unsupported_value with OpenAI’s exact messages',
      'reasoning_tokens in usage',
    ],
  },
  {
    name: 'openai-reasoning-o3-mini',
    server: "OpenAI's reasoning models",
    variant: 'o3-mini',
    dialect: () => openaiReasoning({ model: 'o3-mini' }),
    threadlab: bearerConfig('/v1', 'o3-mini', 'sk-openai-test'),
    toolCalls: 'native',
    demands: ['`max_completion_tokens`, not `max_tokens`', 'no `temperature` at all'],
    reproduces: ["400 `Unsupported parameter: 'temperature' is not supported with this model.`"],
  },
];
