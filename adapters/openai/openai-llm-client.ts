import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { parseEndpointUrl, redactUrlCredentials } from '../../src/domain/endpoint-url.js';
import { ThreadlabError } from '../../src/domain/errors.js';
import type { Logger } from '../../src/logger.js';
import type { LlmClient, LlmRequest, LlmResponse, ToolCall } from '../../src/ports/llm-client.js';
import { mapOpenAiError } from './map-error.js';
import { mapFinishReason, toOpenAiMessages, toOpenAiTools } from './map-messages.js';
import { StreamAssembler } from './stream-assembler.js';

/** Options of {@link OpenAiLlmClient}. */
export interface OpenAiLlmClientOptions {
  /** API key; optional for local servers (a placeholder is sent). */
  apiKey?: string;
  /**
   * Base URL of an OpenAI-compatible API. User info (`user:pass@`) is sent as basic auth and query
   * parameters (`?key=…`) with every request; neither is ever shown. @defaultValue https://api.openai.com/v1
   */
  baseUrl?: string;
  model: string;
  /** Time limit of one HTTP request, in ms. */
  requestTimeoutMs: number;
  /** Retries of 408/409/429/5xx and connection failures, done by the SDK (honouring retry-after). */
  maxRetries: number;
  /** Stream responses (text deltas arrive live). */
  stream: boolean;
  /** Whether the model is given images (chart PNGs). */
  images: boolean;
  logger: Logger;
  /** Replaces `fetch`, for tests. @defaultValue globalThis.fetch */
  fetch?: typeof fetch;
}

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/**
 * Settles with `promise`, or rejects as soon as `signal` aborts: the SDK sleeps through a long
 * retry-after without watching the signal, and a user's Stop must not wait for that.
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

/** The LlmClient over the `openai` SDK's Chat Completions with tool calling; works with any compatible server. */
export class OpenAiLlmClient implements LlmClient {
  readonly model: string;
  readonly acceptsImages: boolean;
  private readonly client: OpenAI;
  private readonly options: OpenAiLlmClientOptions;
  /** The endpoint with its credentials redacted: the only form in messages and logs. */
  private readonly shownUrl: string;
  private readonly endpointSecrets: string[];

  constructor(options: OpenAiLlmClientOptions) {
    this.options = options;
    this.model = options.model;
    this.acceptsImages = options.images;
    const endpoint = parseEndpointUrl(options.baseUrl ?? DEFAULT_BASE_URL);
    this.shownUrl = endpoint.display;
    this.endpointSecrets = endpoint.secrets;
    const log = options.logger.child({ component: 'openai' });
    this.client = new OpenAI({
      // Passed explicitly so the SDK reads nothing from process.env (config.ts is the only reader).
      apiKey: options.apiKey ?? 'not-needed',
      baseURL: endpoint.base,
      ...(Object.keys(endpoint.query).length > 0 ? { defaultQuery: endpoint.query } : {}),
      ...(endpoint.authorization ? { defaultHeaders: { Authorization: endpoint.authorization } } : {}),
      organization: null,
      project: null,
      webhookSecret: null,
      timeout: options.requestTimeoutMs,
      maxRetries: options.maxRetries,
      logLevel: 'info',
      logger: {
        error: (msg, ...rest) => log.error({ details: rest }, msg),
        warn: (msg, ...rest) => log.warn({ details: rest }, msg),
        info: (msg, ...rest) => log.debug({ details: rest }, msg),
        debug: (msg, ...rest) => log.trace({ details: rest }, msg),
      },
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }

  async complete(request: LlmRequest): Promise<LlmResponse> {
    const body: ChatCompletionCreateParamsBase = {
      model: this.model,
      messages: toOpenAiMessages(request.messages, { images: this.acceptsImages }),
      ...(request.tools.length > 0 ? { tools: toOpenAiTools(request.tools) } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.maxOutputTokens !== undefined ? { max_tokens: request.maxOutputTokens } : {}),
    };
    try {
      const pending = this.options.stream ? this.streamed(body, request) : this.whole(body, request);
      return await untilAborted(pending, request.signal);
    } catch (err) {
      throw mapOpenAiError(err, {
        model: this.model,
        baseUrl: this.shownUrl,
        scrub: (text) =>
          redactUrlCredentials(this.endpointSecrets.reduce((t, s) => t.split(s).join('[REDACTED]'), text)),
        requestTimeoutMs: this.options.requestTimeoutMs,
        maxRetries: this.options.maxRetries,
        signal: request.signal,
      });
    }
  }

  private async whole(body: ChatCompletionCreateParamsBase, request: LlmRequest): Promise<LlmResponse> {
    const completion: ChatCompletion = await this.client.chat.completions.create(
      { ...body, stream: false },
      { signal: request.signal },
    );
    const choice = completion.choices?.[0];
    if (!choice) throw new ThreadlabError('llm_api', 'The model API returned no choices.', { isRetryable: true });
    const message = choice.message;
    const toolCalls: ToolCall[] = (message.tool_calls ?? []).flatMap((call) =>
      call.type === 'function'
        ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments ?? '' }]
        : [],
    );
    if (message.content) request.onTextDelta?.(message.content);
    return {
      content: message.content ?? null,
      toolCalls,
      finishReason: mapFinishReason(choice.finish_reason),
      usage: {
        promptTokens: completion.usage?.prompt_tokens ?? 0,
        completionTokens: completion.usage?.completion_tokens ?? 0,
      },
      ...(message.refusal ? { refusal: message.refusal } : {}),
    };
  }

  private async streamed(body: ChatCompletionCreateParamsBase, request: LlmRequest): Promise<LlmResponse> {
    const stream = await this.client.chat.completions.create(
      { ...body, stream: true, stream_options: { include_usage: true } },
      { signal: request.signal },
    );
    const assembler = new StreamAssembler(request.onTextDelta);
    for await (const chunk of stream) assembler.push(chunk);
    if (request.signal?.aborted)
      throw new ThreadlabError('cancelled', 'The model request was cancelled.', { isPolicy: true });
    return assembler.result();
  }
}
