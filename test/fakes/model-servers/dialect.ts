import { randomBytes, randomInt } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { ChatRequestBody } from '../fake-openai-server.js';

/**
 * A `ServerDialect` makes FakeOpenAiServer behave like one real OpenAI-compatible server: where it lives (base
 * path), what it refuses and how (status and exact body), how it shapes a scripted reply (ids, reasoning fields,
 * stream quirks) and what it demands back on the next request. Each server and variant is built in its own file
 * next to this one, with the sources it follows.
 */
export interface ServerDialect {
  /** Shown in failure messages, e.g. `vllm(autoToolChoice: false)`. */
  name: string;
  /** The path the API lives under; `baseUrl` ends with it and chat completions are `${basePath}/chat/completions`. */
  basePath: string;
  /** Refusals checked in order before the script runs; the first one is sent and the scripted step is kept. */
  checks?: DialectCheck[];
  /**
   * Answers to paths other than chat completions, tried in order before `notFound`: a server's own endpoints that
   * state its context window (vLLM's `/v1/models`, llama.cpp's `/props`, Ollama's `/api/show` and `/api/ps`).
   */
  routes?: RouteAnswer[];
  /**
   * What the model sees of a request the checks let through: Ollama cuts a prompt longer than its window from the
   * front, silently. The scripted step and `shapeReply` get this body; the recorded request keeps what was sent.
   */
  prompt?: (request: DialectRequest) => ChatRequestBody;
  /** The answer to a request for any other path. @defaultValue `errorBody(404, …)` */
  notFound?: (request: RouteRequest) => Refusal;
  /** The server's error body for `status` and `message`: scripted errors without a body use it too. */
  errorBody(status: number, message: string): unknown;
  /** How replies are written; unset fields keep the OpenAI shape. */
  style?: Partial<ReplyStyle>;
  /**
   * Rewrites a scripted reply into what this server sends (tool calls as text, signatures), or fails it the way the
   * server fails a generation it cannot deliver (Groq's `tool_use_failed`).
   */
  shapeReply?: (draft: DraftReply, request: DialectRequest) => DraftReply | ReplyFailure;
}

/** A request as a route sees it, before the body is parsed. */
export interface RouteRequest {
  method: string;
  /** The path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
}

/** A parsed chat completions request. */
export interface DialectRequest extends RouteRequest {
  body: ChatRequestBody;
}

/** An HTTP answer that is not a completion; `body` is sent as JSON whatever its type (object, array or string). */
export interface Refusal {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type DialectCheck = (request: DialectRequest) => Refusal | undefined;

/** An answer (any status) to a request for another path; `body` is its JSON body when it had one. */
export type RouteAnswer = (request: RouteRequest & { body: unknown }) => Refusal | undefined;

/**
 * The fakes' tokenizer: a token per four characters of the messages as JSON (roles, keys, quotes and escapes
 * counted), so a fake counts more than Threadlab's estimate of the same request, as real tokenizers do on code and
 * JSON (a client that fitted exactly to its own estimate is refused). Images count 768 tokens each.
 */
export function promptTokens(body: ChatRequestBody): number {
  let images = 0;
  const text = JSON.stringify(body.messages, (key, value: unknown) => {
    if (key === 'image_url') {
      images += 1;
      return undefined;
    }
    return value;
  });
  return Math.ceil(text.length / 4) + images * 768;
}

/** One tool call of a reply about to be sent. */
export interface DraftToolCall {
  id: string;
  name: string;
  /** Raw text; may be malformed JSON when the script says so. */
  arguments: string;
  /** Extra fields sent on the call, e.g. Gemini's `extra_content`. */
  extra?: Record<string, unknown>;
}

/** A scripted model turn as the server is about to send it. */
export interface DraftReply {
  content: string | null;
  /** What the model thought; where it appears depends on `ReplyStyle.reasoning`. */
  reasoning?: string;
  refusal?: string;
  toolCalls: DraftToolCall[];
  finishReason: string;
  usage: Usage | null;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** A generation the server fails: `failure` when not streaming; `streamed` is the raw SSE text after a 200. */
export interface ReplyFailure {
  kind: 'failure';
  failure: Refusal;
  streamed: string;
}

/**
 * Where a reply's reasoning goes: a message/delta field, `<think>…</think>` at the start of the content (what the
 * model emitted, unparsed), or nowhere.
 */
export type ReasoningPlacement = 'reasoning' | 'reasoning_content' | 'think-tags' | 'omit';

/** How replies are written. The defaults reproduce what FakeOpenAiServer always sent (the OpenAI shape). */
export interface ReplyStyle {
  completionId(): string;
  toolCallId(): string;
  reasoning: ReasoningPlacement | ((request: DialectRequest) => ReasoningPlacement);
  /** `message.refusal: null` on every message, as OpenAI sends. */
  refusalField: boolean;
  /** Leave `content` out of a message that has none (LM Studio) instead of sending `null`. */
  omitNullContent: boolean;
  /** `logprobs: null` on every choice. */
  logprobsField: boolean;
  /** Extra top-level fields of the completion and of every chunk. */
  envelope(request: DialectRequest): Record<string, unknown>;
  /** Extra fields of every choice, streamed or not. */
  choiceExtra?: Record<string, unknown>;
  /** Extra top-level fields of a completion that is not streamed. */
  completionExtra?: Record<string, unknown>;
  /** Extra fields inside `usage`. */
  usageExtra?: (usage: Usage) => Record<string, unknown>;
  stream: StreamStyle;
}

export interface StreamStyle {
  /** Raw SSE lines written before the first event, e.g. OpenRouter's `: OPENROUTER PROCESSING` comments. */
  preamble: string[];
  /** A chunk sent before the first choice (Azure's `prompt_filter_results` with empty `choices`). */
  leadChunk?: (request: DialectRequest) => Record<string, unknown>;
  /** The delta of the first chunk. @defaultValue `{ role: 'assistant', content: '' }` */
  firstDelta: Record<string, unknown>;
  /** `pieces`: arguments streamed in fragments (OpenAI, vLLM, llama.cpp); `whole`: each call in one delta. */
  toolCalls: 'pieces' | 'whole';
  /**
   * `on-request`: a usage chunk with empty `choices` when `stream_options.include_usage` is set; `finish-chunk`: usage
   * on the chunk that carries `finish_reason`, always; `never`.
   */
  usage: 'on-request' | 'finish-chunk' | 'never';
  /** Extra top-level fields of the chunk carrying `finish_reason` (Groq's `x_groq`). */
  finishExtra?: (usage: Usage | null) => Record<string, unknown>;
  /** Chunks after the one carrying `finish_reason` (Azure's late content filter annotations). */
  trailingChunks?: (request: DialectRequest) => Array<Record<string, unknown>>;
  /** Raw SSE text of an error after the stream began, given the chunk envelope; it ends the stream. */
  midStreamError(envelope: Record<string, unknown>, message: string): string;
}

/** `n` characters drawn from `alphabet`. */
export function randomChars(alphabet: string, n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

export const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const HEX = '0123456789abcdef';

/** An opaque base64 token, like a thought signature. */
export function opaqueToken(bytes = 48): string {
  return randomBytes(bytes).toString('base64');
}

/** The token of `Authorization: Bearer <token>`, or undefined. */
export function bearerToken(request: RouteRequest): string | undefined {
  const value = request.headers.authorization;
  if (typeof value !== 'string') return undefined;
  const [scheme, ...rest] = value.split(' ');
  return scheme?.toLowerCase() === 'bearer' ? rest.join(' ') : undefined;
}

/** A single header value. */
export function header(request: RouteRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

type Message = ChatRequestBody['messages'][number];

/** The index of the first message of the current turn: the one after the last `user` message. */
export function currentTurnStart(messages: Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === 'user') return i + 1;
  return 0;
}

/** Messages as [start, end) spans between `user` messages, the open span after the last one included. */
export function spansBetweenUserMessages(messages: Message[]): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  let start = 0;
  messages.forEach((message, i) => {
    if (message.role !== 'user') return;
    if (i > start) spans.push([start, i]);
    start = i + 1;
  });
  if (start < messages.length) spans.push([start, messages.length]);
  return spans;
}

/** Whether a message is an assistant message that calls tools. */
export function callsTools(message: Message | undefined): boolean {
  return message?.role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length > 0;
}

/** Whether the request offers tools. */
export function offersTools(body: ChatRequestBody): boolean {
  return Array.isArray(body.tools) && body.tools.length > 0;
}

/** Whether `text` parses to a JSON object, as tool call arguments must. */
export function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** Arguments as a value for servers that embed them in text: parsed JSON when they parse, else the raw text. */
export function argumentsValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A streaming SSE `data:` event. */
export function sseData(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

/** `vllm(autoToolChoice: false)`: a dialect's name from its server and the options given. */
export function dialectName(server: string, options: object): string {
  const given = Object.entries(options).filter(([, value]) => value !== undefined);
  return `${server}(${given.map(([key, value]) => `${key}: ${JSON.stringify(value)}`).join(', ')})`;
}

/** One server, in one configuration, as the catalogue (index.ts) lists it. */
export interface ModelServerEntry {
  /** Stable key, e.g. `vllm-no-auto-tool-choice`. */
  name: string;
  /** The product, e.g. `vLLM`. */
  server: string;
  /** The configuration played, e.g. `autoToolChoice: false` (`default` for the usual one). */
  variant: string;
  /** A fresh dialect for one FakeOpenAiServer. */
  dialect: () => ServerDialect;
  /** How a user points Threadlab at this server. */
  threadlab: ThreadlabConfig;
  /**
   * What the server does with tool calling: `native` (tool_calls in the reply, once the client meets `demands`),
   * `text` (calls come back written in `content`, finish_reason `stop`), `refused` (any request with `tools` is refused).
   */
  toolCalls: 'native' | 'text' | 'refused';
  /** What the client must do for this server to answer; each is enforced by a refusal. */
  demands: string[];
  /** What else of the real server this variant reproduces. */
  reproduces: string[];
}

export interface ThreadlabConfig {
  /** What `OPENAI_BASE_URL` ends with after `http://host:port`: path, and query where the server needs one. */
  baseUrlSuffix: string;
  /** `OPENAI_MODEL`. */
  model: string;
  /** `OPENAI_API_KEY`; undefined when the server needs none. */
  apiKey?: string;
  /** How the server wants the key: as a Bearer token, in Azure's `api-key` header, or not at all. */
  auth: 'none' | 'bearer' | 'api-key-header';
}

/** Threadlab's settings for a server that takes its key as a Bearer token. */
export function bearerConfig(baseUrlSuffix: string, model: string, apiKey: string): ThreadlabConfig {
  return { baseUrlSuffix, model, apiKey, auth: 'bearer' };
}

/** Threadlab's settings for a local server that needs no key. */
export function localConfig(baseUrlSuffix: string, model: string): ThreadlabConfig {
  return { baseUrlSuffix, model, auth: 'none' };
}
