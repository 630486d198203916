import OpenAI from 'openai';
import { attemptSignal } from './attempt-signal.js';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { parseEndpointUrl, redactUrlCredentials } from '../../src/domain/endpoint-url.js';
import { ThreadlabError } from '../../src/domain/errors.js';
import type { Logger } from '../../src/logger.js';
import type { LlmClient, LlmRequest, LlmResponse } from '../../src/ports/llm-client.js';
import { probeContextWindow } from './context-window.js';
import { applyDialectOverride, describeDialect, initialDialect, type Dialect } from './dialect.js';
import { ModelMemory, modelTopic, type ModelTopic } from '../../src/domain/model-memory.js';
import { learn, lessonOf, type SentRequest } from './dialect-learning.js';
import { normalizingFetch } from './error-body.js';
import { mapOpenAiError, serverErrorOfApiError } from './map-error.js';
import { toOpenAiMessages, toOpenAiTools } from './map-messages.js';
import { retryDelayMs, sleepUnlessAborted } from './retry.js';
import { StreamAssembler } from './stream-assembler.js';
import { wholeResponse } from './whole-response.js';

/** Options of {@link OpenAiLlmClient}. */
export interface OpenAiLlmClientOptions {
  /** API key; optional for local servers (a placeholder is sent). */
  apiKey?: string;
  /**
   * Base URL of an OpenAI-compatible API. User info (`user:pass@`) is sent as basic auth and query
   * parameters (`?key=…`, Azure's `?api-version=…`) with every request; neither secret is ever shown.
   * @defaultValue https://api.openai.com/v1
   */
  baseUrl?: string;
  model: string;
  /** Time limit of one HTTP request, in ms. */
  requestTimeoutMs: number;
  /**
   * Tries after the first for failures a later try may not have: no answer, 408/409/429/5xx, an error
   * inside a stream, Groq's tool_use_failed. Honours retry-after.
   */
  maxRetries: number;
  /** Stream responses (text deltas arrive live). */
  stream: boolean;
  /** Whether the model is given images (chart PNGs). */
  images: boolean;
  /** `THREADLAB_LLM_DIALECT`: what this server needs that its answers cannot teach. */
  dialect?: string;
  logger: Logger;
  /** Replaces `fetch`, for tests. @defaultValue globalThis.fetch */
  fetch?: typeof fetch;
  /**
   * Where what is learned about the server and model is kept (its dialect, its context window), beside what the
   * interpreter learns about it (its tool protocol). @defaultValue a memory of this client's own
   */
  memory?: ModelMemory;
}

/** The context window as learned: probed once (the promise is shared by turns asking at once), lowered by refusals. */
const WINDOW = modelTopic<{ tokens?: Promise<number | undefined> }>('context window', () => ({}));

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/** Most lessons drawn from refusals of one request; each changes the request, so this is a safety net. */
const MAX_LESSONS = 6;

/**
 * Settles with `promise`, or rejects as soon as `signal` aborts: a user's Stop must not wait for a slow
 * server.
 */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void =>
      reject(new ThreadlabError('cancelled', 'The model request was cancelled.', { isPolicy: true }));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * The LlmClient over the `openai` SDK's Chat Completions, for any OpenAI-compatible server: it learns the
 * server's dialect from its refusals (a refused parameter is left out and the request sent again, once
 * per lesson, with a log line), sends what the server needs back (thought signatures, thinking), takes
 * thinking out of answers, reads error bodies of every shape, and retries what is transient.
 */
export class OpenAiLlmClient implements LlmClient {
  readonly model: string;
  readonly acceptsImages: boolean;
  readonly endpoint: string;
  private readonly client: OpenAI;
  private readonly options: OpenAiLlmClientOptions;
  private readonly endpointSecrets: string[];
  private readonly log: Logger;
  private readonly memory: ModelMemory;
  private readonly dialectTopic: ModelTopic<Dialect>;

  constructor(options: OpenAiLlmClientOptions) {
    this.options = options;
    this.model = options.model;
    this.acceptsImages = options.images;
    const baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
    const endpoint = parseEndpointUrl(baseUrl);
    this.endpoint = endpoint.display;
    this.endpointSecrets = endpoint.secrets;
    this.memory = options.memory ?? new ModelMemory();
    this.dialectTopic = modelTopic('dialect', () => applyDialectOverride(initialDialect(baseUrl), options.dialect));
    this.log = options.logger.child({ component: 'openai' });
    const apiKey = options.apiKey ?? 'not-needed';
    const log = this.log;
    this.client = new OpenAI({
      // Passed explicitly so the SDK reads nothing from process.env (config.ts is the only reader).
      apiKey,
      baseURL: endpoint.base,
      ...(Object.keys(endpoint.query).length > 0 ? { defaultQuery: endpoint.query } : {}),
      ...(endpoint.authorization ? { defaultHeaders: { Authorization: endpoint.authorization } } : {}),
      organization: null,
      project: null,
      webhookSecret: null,
      timeout: options.requestTimeoutMs,
      // Retries are ours (retry.ts): they also cover errors inside a stream and tool_use_failed, and count.
      maxRetries: 0,
      logLevel: 'info',
      logger: {
        error: (msg, ...rest) => log.error({ details: rest }, msg),
        warn: (msg, ...rest) => log.warn({ details: rest }, msg),
        info: (msg, ...rest) => log.debug({ details: rest }, msg),
        debug: (msg, ...rest) => log.trace({ details: rest }, msg),
      },
      fetch: this.fetchFor(options.fetch ?? globalThis.fetch, apiKey, Boolean(endpoint.authorization)),
    });
  }

  /**
   * The model's context window where the server says it: probed once per client (its endpoint and model) with
   * bounded requests, then lowered to what any context-length refusal states. A failed probe counts as unknown.
   */
  contextWindow(options: { signal?: AbortSignal } = {}): Promise<number | undefined> {
    const window = this.window;
    window.tokens ??= this.probeWindow(options.signal);
    return window.tokens;
  }

  /** What this server wants of a request, as learned so far (kept per endpoint and model). */
  private get dialect(): Dialect {
    return this.memory.notes(this, this.dialectTopic);
  }

  private get window(): { tokens?: Promise<number | undefined> } {
    return this.memory.notes(this, WINDOW);
  }

  private async probeWindow(signal: AbortSignal | undefined): Promise<number | undefined> {
    const endpoint = parseEndpointUrl(this.options.baseUrl ?? DEFAULT_BASE_URL);
    const key = this.options.apiKey;
    const headers: Record<string, string> = {};
    if (endpoint.authorization) headers.authorization = endpoint.authorization;
    else if (key && this.dialect.auth === 'bearer') headers.authorization = `Bearer ${key}`;
    if (key && this.dialect.auth === 'api-key') headers['api-key'] = key;
    const stated = await probeContextWindow({
      baseUrl: endpoint.base,
      model: this.model,
      query: endpoint.query,
      headers,
      ...(signal ? { signal } : {}),
      logger: this.log,
      ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
    });
    if (signal?.aborted && !stated) {
      delete this.window.tokens; // A Stop during the probe: the next turn asks again.
      return undefined;
    }
    this.log.info(
      { model: this.model, endpoint: this.endpoint, contextTokens: stated?.tokens, source: stated?.source },
      stated ? 'model context window learned' : 'model server does not state a context window',
    );
    return stated?.tokens;
  }

  /** A refusal that names the window: later requests are fitted to it. */
  private learnWindow(tokens: number): void {
    const window = this.window;
    window.tokens = (window.tokens ?? Promise.resolve(undefined)).then((before) => {
      if (before === undefined || tokens < before)
        this.log.info(
          { model: this.model, endpoint: this.endpoint, contextTokens: tokens },
          'model context window learned from a refusal',
        );
      return before === undefined ? tokens : Math.min(before, tokens);
    });
  }

  /** What this server is known to need beyond the ideal protocol, as learned so far. */
  dialectFacts(): string[] {
    return describeDialect(this.dialect);
  }

  async complete(request: LlmRequest): Promise<LlmResponse> {
    let attempts = 0;
    let lessons = 0;
    for (;;) {
      const { body, sent, stream } = this.body(request);
      attempts += 1;
      const attempt = attemptSignal(request.signal);
      try {
        const one = { ...request, signal: attempt.signal };
        const pending = stream ? this.streamed(body, one) : this.whole(body, one);
        return await untilAborted(pending, request.signal);
      } catch (err) {
        if (request.signal?.aborted) throw this.mapped(err, request, attempts);
        if (err instanceof OpenAI.APIError && err.status !== undefined && lessons < MAX_LESSONS) {
          const lesson = lessonOf(err.status, serverErrorOfApiError(err), sent, this.dialect);
          if (lesson) {
            lessons += 1;
            attempts -= 1; // A changed request is a new first attempt.
            const change = learn(this.dialect, lesson);
            this.log.info(
              { model: this.model, endpoint: this.endpoint, status: err.status, change },
              'model server dialect learned',
            );
            continue;
          }
        }
        const mapped = this.mapped(err, request, attempts);
        const stated = mapped.code === 'llm_context_exceeded' ? mapped.details?.windowTokens : undefined;
        if (typeof stated === 'number') this.learnWindow(stated);
        // map-error decides what a later try may fix (only Groq's tool_use_failed among 400s).
        if (!mapped.isRetryable || attempts > this.options.maxRetries) throw mapped;
        const delayMs = retryDelayMs(attempts, mapped.retryAfterMs);
        this.log.warn(
          { code: mapped.code, attempt: attempts, delayMs, err: mapped.message },
          'model request failed; trying again',
        );
        await sleepUnlessAborted(delayMs, request.signal);
        if (request.signal?.aborted) throw this.mapped(err, request, attempts);
      } finally {
        attempt.release();
      }
    }
  }

  private mapped(err: unknown, request: LlmRequest, attempts: number): ThreadlabError {
    return mapOpenAiError(err, {
      model: this.model,
      baseUrl: this.endpoint,
      azure: this.dialect.auth === 'api-key',
      scrub: (text) => redactUrlCredentials(this.endpointSecrets.reduce((t, s) => t.split(s).join('[REDACTED]'), text)),
      requestTimeoutMs: this.options.requestTimeoutMs,
      attempts,
      signal: request.signal,
    });
  }

  /** The request as this server's dialect wants it, whether it streams, and what it carries (for lessons). */
  private body(request: LlmRequest): { body: ChatCompletionCreateParamsBase; sent: SentRequest; stream: boolean } {
    const d = this.dialect;
    const messages = toOpenAiMessages(request.messages, { images: this.acceptsImages, dialect: d });
    const body: ChatCompletionCreateParamsBase = {
      model: this.model,
      messages,
      ...(request.tools.length > 0 ? { tools: toOpenAiTools(request.tools) } : {}),
      ...(request.temperature !== undefined && !d.omit.has('temperature') ? { temperature: request.temperature } : {}),
      ...(request.maxOutputTokens !== undefined ? { [d.maxTokensField]: request.maxOutputTokens } : {}),
    };
    const stream = this.options.stream && (request.tools.length === 0 || d.streamWithTools);
    if (stream && !d.omit.has('stream_options')) body.stream_options = { include_usage: true };
    const userAfterTool = messages.some((m, i) => m.role === 'user' && messages[i - 1]?.role === 'tool');
    const reasoningHeld =
      !d.reasoningBack && request.messages.some((m) => m.role === 'assistant' && Boolean(m.reasoning));
    const fields = new Set(Object.keys(body));
    if (stream) fields.add('stream');
    return { body, sent: { fields, userAfterTool, reasoningHeld }, stream };
  }

  private async whole(body: ChatCompletionCreateParamsBase, request: LlmRequest): Promise<LlmResponse> {
    const completion = await this.client.chat.completions.create(
      { ...body, stream: false, stream_options: undefined },
      { signal: request.signal },
    );
    const { response, reasoningField, templateOpensThinking } = wholeResponse(completion, this.dialect.thinkOpen);
    this.noteThinking(reasoningField, templateOpensThinking);
    if (response.content) request.onTextDelta?.(response.content);
    return response;
  }

  private async streamed(body: ChatCompletionCreateParamsBase, request: LlmRequest): Promise<LlmResponse> {
    const stream = await this.client.chat.completions.create({ ...body, stream: true }, { signal: request.signal });
    const assembler = new StreamAssembler(request.onTextDelta, { thinkOpen: this.dialect.thinkOpen });
    for await (const chunk of stream) assembler.push(chunk);
    if (request.signal?.aborted)
      throw new ThreadlabError('cancelled', 'The model request was cancelled.', { isPolicy: true });
    const response = assembler.result();
    this.noteThinking(assembler.thinkingField, assembler.templateOpensThinking);
    return response;
  }

  /** Remembers where this server puts thinking: its field (to send back when required), an opened `<think>`. */
  private noteThinking(field: Dialect['reasoningField'], templateOpens: boolean): void {
    if (field && this.dialect.reasoningField !== field) this.dialect.reasoningField = field;
    if (templateOpens && !this.dialect.thinkOpen) {
      this.dialect.thinkOpen = true;
      this.log.info(
        { model: this.model, endpoint: this.endpoint },
        'model server dialect learned: its template opens <think>',
      );
    }
  }

  /**
   * The fetch the SDK uses: error bodies of any shape made readable, and the key sent the way the server
   * wants it (Azure's `api-key` header instead of a Bearer token), decided per request as it may be learned.
   */
  private fetchFor(inner: typeof fetch, apiKey: string, basicAuth: boolean): typeof fetch {
    const readable = normalizingFetch(inner);
    return (input, init) => {
      if (this.dialect.auth !== 'api-key' || basicAuth) return readable(input, init);
      const headers = new Headers(init?.headers);
      headers.delete('authorization');
      headers.set('api-key', apiKey);
      return readable(input, { ...init, headers });
    };
  }
}
