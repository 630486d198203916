/**
 * llama.cpp's `llama-server`: `POST /v1/chat/completions` (also `/chat/completions`), one model, any model name.
 *
 * Sources read (ggml-org/llama.cpp):
 * - `tools/server/server-common.cpp` `oaicompat_chat_params_parse`: without jinja templates, `tools` throws
 *   `std::runtime_error("tools param requires --jinja flag")` and a `tool_choice` other than `auto` throws
 *   `"tool_choice param requires --jinja flag"`; a per-request `reasoning_format` overrides `--reasoning-format`.
 * - `tools/server/server-common.cpp` `format_error_response`: `{"code", "message", "type"}` under `error`,
 *   `ERROR_TYPE_SERVER` → 500 `server_error`; `gen_chatcmplid()` is `chatcmpl-` + 32 random alphanumerics and
 *   `gen_tool_call_id()` 32 random alphanumerics.
 * - `tools/server/server.cpp` `ex_wrapper`: `std::invalid_argument` → 400, any other exception → 500 (so the jinja
 *   refusal is a 500, which clients retry). Issues containers/ramalama#988, defilantech/LLMKube#126 show
 *   `500 tools param requires --jinja flag` and `'type': 'server_error'`.
 * - `--jinja` became the default with ggml-org/llama.cpp#17524 (Nov 2025); `--no-jinja` (or an older build) restores
 *   the refusal.
 * - `--reasoning-format` help (common/arg.cpp, quoted in tools/server/README.md): `none` leaves thoughts unparsed in
 *   `message.content`; `deepseek` puts them in `message.reasoning_content`; `deepseek-legacy` keeps `<think>` tags in
 *   `message.content` while also populating `message.reasoning_content`; default `auto` (acts as `deepseek`).
 * - Older `examples/server/utils.hpp` (before streamed tool calls, spring 2025): tools with `stream` threw
 *   `"Cannot use tools with stream"` (500 by the same wrapper).
 * - Context: `GET /props` answers `default_generation_settings.n_ctx`, the context of one slot (`-c` divided by
 *   `-np`; tools/server/README.md "GET /props"). A prompt of `n_ctx` tokens or more is refused with 400
 *   `{"error":{"code":400,"message":"request (4476 tokens) exceeds the available context size (4096 tokens)",
 *   "type":"exceed_context_size_error","n_prompt_tokens":4476,"n_ctx":4096}}` (`ERROR_TYPE_EXCEED_CONTEXT_SIZE`, since
 *   context shift is off by default); older builds said "the request exceeds the available context size, try
 *   increasing it" (invalid_request_error).
 * Not confirmed: whether the final streamed chunk carries usage without `stream_options` (the fake follows
 * `stream_options.include_usage`); `timings` fields are not reproduced.
 */
import {
  ALNUM,
  dialectName,
  type DialectRequest,
  localConfig,
  type ModelServerEntry,
  offersTools,
  promptTokens,
  randomChars,
  type ServerDialect,
  sseData,
} from './dialect.js';
import { streamStyle } from './reply-writer.js';

export type ReasoningFormat = 'auto' | 'deepseek' | 'deepseek-legacy' | 'none';

export interface LlamaCppOptions {
  /** Jinja chat templates on (the default since late 2025; off with `--no-jinja`). @defaultValue true */
  jinja?: boolean;
  /** `--reasoning-format`. @defaultValue 'auto' */
  reasoningFormat?: ReasoningFormat;
  /** False for builds from before streamed tool calls, which refuse tools with `stream: true`. @defaultValue true */
  toolsWithStream?: boolean;
  /** `-c` (one slot): the context window, in the fake's tokens (dialect.ts promptTokens). @defaultValue 40960 */
  nCtx?: number;
}

/** llama-server's error body for `status`. */
export function llamaCppError(status: number, message: string): unknown {
  const type = status === 400 ? 'invalid_request_error' : status === 404 ? 'not_found_error' : 'server_error';
  return { error: { code: status, message, type } };
}

const serverError = (message: string) => ({ status: 500, body: llamaCppError(500, message) });

/** llama-server with one model loaded. */
export function llamaCpp(options: LlamaCppOptions = {}): ServerDialect {
  const format = (request: DialectRequest): ReasoningFormat => {
    const asked = request.body.reasoning_format;
    return typeof asked === 'string' ? (asked as ReasoningFormat) : (options.reasoningFormat ?? 'auto');
  };
  const nCtx = options.nCtx ?? 40960;
  return {
    name: dialectName('llamaCpp', options),
    basePath: '/v1',
    errorBody: llamaCppError,
    checks: [
      ({ body }) => {
        if (options.jinja !== false) return undefined;
        if (offersTools(body)) return serverError('tools param requires --jinja flag');
        const choice = body.tool_choice;
        return choice !== undefined && choice !== 'auto'
          ? serverError('tool_choice param requires --jinja flag')
          : undefined;
      },
      ({ body }) =>
        options.toolsWithStream === false && offersTools(body) && body.stream
          ? serverError('Cannot use tools with stream')
          : undefined,
      ({ body }) => {
        const n = promptTokens(body);
        if (n < nCtx) return undefined;
        const message = `request (${n} tokens) exceeds the available context size (${nCtx} tokens)`;
        const error = { code: 400, message, type: 'exceed_context_size_error', n_prompt_tokens: n, n_ctx: nCtx };
        return { status: 400, body: { error } };
      },
    ],
    routes: [
      ({ method, path }) =>
        method === 'GET' && path === '/props'
          ? {
              status: 200,
              body: {
                default_generation_settings: { n_ctx: nCtx, params: { n_predict: -1, temperature: 0.8 } },
                total_slots: 1,
                model_path: '/models/Qwen3-8B-Q4_K_M.gguf',
                modalities: { vision: false, audio: false },
                build_info: 'b6500-fake',
              },
            }
          : undefined,
    ],
    style: {
      completionId: () => `chatcmpl-${randomChars(ALNUM, 32)}`,
      toolCallId: () => randomChars(ALNUM, 32),
      reasoning: (request) => (format(request) === 'none' ? 'think-tags' : 'reasoning_content'),
      refusalField: false,
      stream: streamStyle({ midStreamError: (_envelope, message) => sseData(llamaCppError(500, message)) }),
    },
    // deepseek-legacy: the tags stay in the content and the field is filled too.
    shapeReply: (counted, request) => {
      // With a window set, usage reports the prompt as the server counted it.
      const draft =
        options.nCtx === undefined || !counted.usage
          ? counted
          : { ...counted, usage: { ...counted.usage, prompt_tokens: promptTokens(request.body) } };
      return format(request) === 'deepseek-legacy' && draft.reasoning
        ? { ...draft, content: `<think>\n${draft.reasoning}\n</think>\n\n${draft.content ?? ''}` }
        : draft;
    },
  };
}

/** The catalogue entries of this server (test/fakes/model-servers/index.ts). */
export const LLAMA_CPP_SERVERS: ModelServerEntry[] = [
  {
    name: 'llama-cpp',
    server: "llama.cpp's llama-server",
    variant: 'default (--jinja, --reasoning-format auto)',
    dialect: () => llamaCpp(),
    threadlab: localConfig('/v1', 'qwen3-8b'),
    toolCalls: 'native',
    demands: [],
    reproduces: [
      'reasoning in `reasoning_content`; a request `reasoning_format` overrides the server default',
      'tool call ids of 32 alphanumerics, `chatcmpl-<32 alphanumerics>`',
      'errors `{"error":{"code","message","type"}}`',
    ],
  },
  {
    name: 'llama-cpp-no-jinja',
    server: "llama.cpp's llama-server",
    variant: 'jinja: false (--no-jinja, or builds before Nov 2025)',
    dialect: () => llamaCpp({ jinja: false }),
    threadlab: localConfig('/v1', 'qwen3-8b'),
    toolCalls: 'refused',
    demands: ['send no `tools`'],
    reproduces: ['500 `tools param requires --jinja flag` (server_error), which the openai client retries'],
  },
  {
    name: 'llama-cpp-reasoning-none',
    server: "llama.cpp's llama-server",
    variant: 'reasoningFormat: none',
    dialect: () => llamaCpp({ reasoningFormat: 'none' }),
    threadlab: localConfig('/v1', 'qwen3-8b'),
    toolCalls: 'native',
    demands: ['strip `<think>…</think>` from the content'],
    reproduces: ['thinking left in content as `<think>…</think>`'],
  },
  {
    name: 'llama-cpp-deepseek-legacy',
    server: "llama.cpp's llama-server",
    variant: 'reasoningFormat: deepseek-legacy',
    dialect: () => llamaCpp({ reasoningFormat: 'deepseek-legacy' }),
    threadlab: localConfig('/v1', 'qwen3-8b'),
    toolCalls: 'native',
    demands: ['strip `<think>…</think>` from the content'],
    reproduces: ['`<think>` tags kept in content and `reasoning_content` filled too'],
  },
  {
    name: 'llama-cpp-no-stream-tools',
    server: "llama.cpp's llama-server",
    variant: 'toolsWithStream: false (builds before May 2025)',
    dialect: () => llamaCpp({ toolsWithStream: false }),
    threadlab: localConfig('/v1', 'qwen3-8b'),
    toolCalls: 'native',
    demands: ['send tools without `stream: true`'],
    reproduces: ['500 `Cannot use tools with stream` (server_error)'],
  },
];
