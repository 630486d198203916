/**
 * vLLM's OpenAI-compatible server: `vllm serve <model>`, `POST /v1/chat/completions`.
 *
 * Sources read (vllm-project/vllm):
 * - `vllm/entrypoints/openai/chat_completion/serving.py`: with `tool_choice` `auto` and no
 *   `--enable-auto-tool-choice`/`--tool-call-parser`, `create_error_response('"auto" tool choice requires
 *   --enable-auto-tool-choice and --tool-call-parser to be set')` (400, type `BadRequestError`).
 * - `tests/tool_use/test_chat_completion_request_validations.py`: `tool_choice` defaults to `auto` when tools are
 *   given and `none` otherwise; `reasoning_content` in an assistant message is accepted and renamed `reasoning`.
 * - `vllm/entrypoints/openai/engine/protocol.py`: `ErrorResponse {error: {message, type, param, code: int}}`;
 *   older releases sent the flat `{"object":"error","message","type","param","code"}` (changed in vLLM 0.10.1 by
 *   vllm-project/vllm#22099, see foundation-model-stack/fms-guardrails-orchestrator#511 and vllm-project/vllm#12886).
 * - `_check_model` in `serving_engine.py`: an unserved model name is 404 `` The model `<name>` does not exist. ``,
 *   type `NotFoundError`.
 * - `vllm/entrypoints/openai/server_utils.py`: with `--api-key`, `AuthenticationMiddleware` answers paths under /v1
 *   without the right Bearer token with 401 `{"error": "Unauthorized"}`; an error inside a stream is sent as the
 *   next chunk.
 * - `vllm/entrypoints/openai/tool_parsers/hermes_tool_parser.py`: when the output holds no parsable
 *   `<tool_call>{"name", "arguments"}</tool_call>` (`json.loads` fails, or the chosen parser expects another
 *   format), `tools_called=False` and the whole model output is returned as `content`, so `finish_reason` is `stop`.
 * - `vllm/entrypoints/chat_utils.py` `make_tool_call_id`: `chatcmpl-tool-<random_uuid()>` (32 hex).
 * - Reasoning: `reasoning_content` until vllm-project/vllm#27752 (Nov 2025, kept both) and #33402 (Jan 2026, removed
 *   `reasoning_content`); since then the field is `reasoning` (vllm-project/router#115). Without `--reasoning-parser`
 *   the thinking stays in `content` as `<think>…</think>`.
 * - Context (vllm/entrypoints/openai/protocol.py `ModelCard`): `GET /v1/models` lists the served model with
 *   `max_model_len` (`--max-model-len`, else the model's own length; Qwen3-8B's is 40960). `_validate_input` in
 *   serving_engine.py refuses a prompt of `max_model_len` tokens or more with 400 "This model's maximum context length
 *   is 4096 tokens. However, your request has 5000 input tokens. Please reduce the length of the input messages.";
 *   before 0.10 "… However, you requested 5000 tokens (5000 in the messages, 0 in the completion). Please reduce the
 *   length of the messages or completion." (vllm-project/vllm#20409).
 * Not confirmed: the per-chunk details of a streamed tool call (the fake streams arguments in pieces as OpenAI does).
 */
import {
  argumentsValue,
  bearerConfig,
  bearerToken,
  dialectName,
  HEX,
  promptTokens,
  localConfig,
  type ModelServerEntry,
  offersTools,
  randomChars,
  type Refusal,
  type ServerDialect,
  sseData,
} from './dialect.js';
import { streamStyle } from './reply-writer.js';

export interface VllmOptions {
  /** The model name given to `vllm serve` (or `--served-model-name`). @defaultValue `Qwen/Qwen3-8B` */
  servedModel?: string;
  /** Started with `--enable-auto-tool-choice --tool-call-parser …`. @defaultValue true */
  autoToolChoice?: boolean;
  /** The tool parser does not match the model's format: tool calls come back as `<tool_call>` text. @defaultValue false */
  parserMismatch?: boolean;
  /** Started with `--reasoning-parser`: thinking in a field, not in `content`. @defaultValue true */
  reasoningParser?: boolean;
  /** Before 0.10.1: flat error bodies and `reasoning_content`. @defaultValue false */
  legacy?: boolean;
  /** Started with `--api-key`. */
  apiKey?: string;
  /** `--max-model-len`: the context window, in the fake's tokens (dialect.ts promptTokens). @defaultValue 40960 */
  maxModelLen?: number;
}

/** vLLM's error body: nested since 0.10.1, flat (`object: "error"`) before. */
export function vllmError(status: number, message: string, legacy = false): unknown {
  const type = status === 404 ? 'NotFoundError' : status >= 500 ? 'InternalServerError' : 'BadRequestError';
  const info = { message, type, param: null, code: status };
  return legacy ? { object: 'error', ...info } : { error: info };
}

/** A tool call as Hermes-style models write it and vLLM returns it when no parser takes it. */
function asText(calls: Array<{ name: string; arguments: string }>): string {
  return calls
    .map(
      (call) =>
        `<tool_call>\n${JSON.stringify({ name: call.name, arguments: argumentsValue(call.arguments) })}\n</tool_call>`,
    )
    .join('\n');
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** vLLM serving one model. */
export function vllm(options: VllmOptions = {}): ServerDialect {
  const served = options.servedModel ?? 'Qwen/Qwen3-8B';
  const legacy = options.legacy ?? false;
  const refuse = (status: number, message: string): Refusal => ({ status, body: vllmError(status, message, legacy) });
  const maxModelLen = options.maxModelLen ?? 40960;
  const tooLong = (n: number, completion: number): string =>
    legacy
      ? `This model's maximum context length is ${maxModelLen} tokens. However, you requested ${n + completion} tokens (${n} in the messages, ${completion} in the completion). Please reduce the length of the messages or completion.`
      : `This model's maximum context length is ${maxModelLen} tokens. However, your request has ${n} input tokens. Please reduce the length of the input messages.`;
  return {
    name: dialectName('vllm', options),
    basePath: '/v1',
    errorBody: (status, message) => vllmError(status, message, legacy),
    checks: [
      (request) =>
        options.apiKey !== undefined && bearerToken(request) !== options.apiKey
          ? { status: 401, body: { error: 'Unauthorized' } }
          : undefined,
      ({ body }) => (body.model === served ? undefined : refuse(404, `The model \`${body.model}\` does not exist.`)),
      ({ body }) =>
        options.autoToolChoice === false &&
        offersTools(body) &&
        (body.tool_choice === undefined || body.tool_choice === 'auto')
          ? refuse(400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set')
          : undefined,
      ({ body }) => {
        const n = promptTokens(body);
        const completion = Number(body.max_completion_tokens ?? body.max_tokens ?? 0);
        return n >= maxModelLen ? refuse(400, tooLong(n, completion)) : undefined;
      },
    ],
    routes: [
      (request) => {
        if (request.method !== 'GET' || request.path !== '/v1/models') return undefined;
        if (options.apiKey !== undefined && bearerToken(request) !== options.apiKey)
          return { status: 401, body: { error: 'Unauthorized' } };
        const card = { id: served, object: 'model', created: 1_700_000_000, owned_by: 'vllm', root: served };
        return { status: 200, body: { object: 'list', data: [{ ...card, parent: null, max_model_len: maxModelLen }] } };
      },
    ],
    style: {
      completionId: () => `chatcmpl-${randomChars(HEX, 32)}`,
      toolCallId: () => `chatcmpl-tool-${randomChars(HEX, 32)}`,
      reasoning: options.reasoningParser === false ? 'think-tags' : legacy ? 'reasoning_content' : 'reasoning',
      refusalField: false,
      stream: streamStyle({ midStreamError: (_envelope, message) => sseData(vllmError(500, message, legacy)) }),
    },
    shapeReply: (counted, request) => {
      // With a window set, usage reports the prompt as the server counted it.
      const draft =
        options.maxModelLen === undefined || !counted.usage
          ? counted
          : { ...counted, usage: { ...counted.usage, prompt_tokens: promptTokens(request.body) } };
      if (draft.toolCalls.length === 0) return draft;
      // No parser took the output: the model's text, tags and all, is the content.
      if (options.parserMismatch || !draft.toolCalls.every((call) => parses(call.arguments))) {
        const text = [draft.content ?? '', asText(draft.toolCalls)].filter(Boolean).join('\n');
        return { ...draft, content: text, toolCalls: [], finishReason: 'stop' };
      }
      return draft;
    },
  };
}

/** The catalogue entries of this server (test/fakes/model-servers/index.ts). */
export const VLLM_SERVERS: ModelServerEntry[] = [
  {
    name: 'vllm',
    server: 'vLLM',
    variant: 'default',
    dialect: () => vllm(),
    threadlab: localConfig('/v1', 'Qwen/Qwen3-8B'),
    toolCalls: 'native',
    demands: ['the served model name'],
    reproduces: [
      'reasoning in `reasoning` (since 2026)',
      'tool call ids `chatcmpl-tool-<32 hex>`, arguments streamed in pieces',
      'a tool call whose arguments are not JSON comes back as `<tool_call>` text, finish_reason `stop`',
      '404 ``The model `x` does not exist.`` (NotFoundError) for another model name',
      'errors `{"error":{"message","type":"BadRequestError","param":null,"code":400}}`',
    ],
  },
  {
    name: 'vllm-no-auto-tool-choice',
    server: 'vLLM',
    variant: 'autoToolChoice: false',
    dialect: () => vllm({ autoToolChoice: false }),
    threadlab: localConfig('/v1', 'Qwen/Qwen3-8B'),
    toolCalls: 'refused',
    demands: ['send no `tools` (or a tool_choice other than auto)'],
    reproduces: ['400 `"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`'],
  },
  {
    name: 'vllm-parser-mismatch',
    server: 'vLLM',
    variant: 'parserMismatch: true',
    dialect: () => vllm({ parserMismatch: true }),
    threadlab: localConfig('/v1', 'Qwen/Qwen3-8B'),
    toolCalls: 'text',
    demands: ['read `<tool_call>{"name","arguments"}</tool_call>` from the content'],
    reproduces: ['tool calls as `<tool_call>` text in content, finish_reason `stop`'],
  },
  {
    name: 'vllm-legacy',
    server: 'vLLM',
    variant: 'legacy: true (before 0.10.1)',
    dialect: () => vllm({ legacy: true }),
    threadlab: localConfig('/v1', 'Qwen/Qwen3-8B'),
    toolCalls: 'native',
    demands: [],
    reproduces: ['flat errors `{"object":"error","message",…}`', 'reasoning in `reasoning_content`'],
  },
  {
    name: 'vllm-no-reasoning-parser',
    server: 'vLLM',
    variant: 'reasoningParser: false',
    dialect: () => vllm({ reasoningParser: false }),
    threadlab: localConfig('/v1', 'Qwen/Qwen3-8B'),
    toolCalls: 'native',
    demands: ['strip `<think>…</think>` from the content'],
    reproduces: ['thinking left in content as `<think>…</think>`'],
  },
  {
    name: 'vllm-api-key',
    server: 'vLLM',
    variant: 'apiKey: "vllm-secret"',
    dialect: () => vllm({ apiKey: 'vllm-secret' }),
    threadlab: bearerConfig('/v1', 'Qwen/Qwen3-8B', 'vllm-secret'),
    toolCalls: 'native',
    demands: ['the key as a Bearer token'],
    reproduces: ['401 `{"error":"Unauthorized"}` (a string) for a missing or wrong key'],
  },
];
