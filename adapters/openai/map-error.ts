import OpenAI from 'openai';
import { ThreadlabError } from '../../src/domain/errors.js';
import { contextRefusalOf } from './context-refusal.js';
import { refusesTools } from './dialect-learning.js';
import { serverErrorOf, type ServerError } from './error-body.js';

export interface ErrorContext {
  model: string;
  baseUrl: string;
  requestTimeoutMs: number;
  /** How many times the request was sent in all. */
  attempts: number;
  /** The key goes in Azure's api-key header. */
  azure?: boolean;
  signal?: AbortSignal;
  /** Removes the endpoint's credentials from text the API sent back (servers echo request URLs). */
  scrub?: (text: string) => string;
}

function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms && !Number.isNaN(Number(ms))) return Number(ms);
  const seconds = headers?.get('retry-after');
  if (!seconds) return undefined;
  if (!Number.isNaN(Number(seconds))) return Number(seconds) * 1000;
  const date = Date.parse(seconds);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The server's reason as the `openai` client kept it (error bodies were normalized by normalizingFetch). */
export function serverErrorOfApiError(err: InstanceType<typeof OpenAI.APIError>): ServerError {
  return serverErrorOf({ error: err.error }) ?? { message: err.message.replace(/^\d{3} /, '') };
}

/** Groq's answer when the model wrote a tool call the server could not parse: another try usually works. */
export const isToolUseFailed = (e: ServerError): boolean => e.code === 'tool_use_failed';

const CONTEXT_HINT =
  "Raise the server's context window (vLLM --max-model-len, llama-server -c, Ollama num_ctx), set THREADLAB_LLM_CONTEXT_TOKENS to it, lower THREADLAB_MEMORY_TOKENS, or use a model with a longer context.";

/** The setting to change for a refusal, from what the server said. */
function refusalHint(status: number, e: ServerError, ctx: ErrorContext): string {
  const m = e.message;
  if (status === 401 || status === 403)
    return ctx.azure
      ? 'Check OPENAI_API_KEY (Azure: the resource key, sent in the api-key header) and that OPENAI_BASE_URL names your resource and deployment.'
      : 'Check OPENAI_API_KEY (for Azure, use the deployment URL with ?api-version=…, so the key goes in the api-key header).';
  if (status === 404)
    return `Check OPENAI_MODEL (${ctx.model}) and OPENAI_BASE_URL (most servers' URLs end in /v1; Azure: …/openai/deployments/NAME?api-version=…; Gemini: …/v1beta/openai).`;
  if (/context|too (many|long)|maximum.*tokens|token limit|exceeds/i.test(m)) return CONTEXT_HINT;
  if (/temperature/i.test(m))
    return 'Unset THREADLAB_LLM_TEMPERATURE, or set one this model accepts (THREADLAB_LLM_DIALECT=no-temperature leaves it out).';
  if (/image|vision|multimodal|image_url/i.test(m))
    return 'Set THREADLAB_LLM_IMAGES=false if this model cannot read images.';
  if (/model/i.test(m) && /not (found|exist|available|loaded)|unknown|invalid|no such/i.test(m))
    return `Check OPENAI_MODEL (${ctx.model}): it must be a model this server serves.`;
  if (/reasoning/i.test(m))
    return 'THREADLAB_LLM_DIALECT=reasoning-back sends the thinking back, if this server needs it.';
  return `Check OPENAI_MODEL (${ctx.model}); THREADLAB_LLM_DIALECT adjusts the request for a server that needs it (see the README).`;
}

/** The server flag or setting for a server that refuses tools, from its own words. */
function toolsHint(e: ServerError): string {
  const m = e.message;
  if (/--enable-auto-tool-choice/.test(m))
    return 'start vLLM with --enable-auto-tool-choice --tool-call-parser <parser for the model>';
  if (/--jinja/.test(m)) return 'start llama-server with --jinja';
  return 'use a model with tool support';
}

/**
 * Converts what the `openai` client threw (after its own retries) into a ThreadlabError once, saying what
 * happened and what to change: `llm_unreachable` only when no HTTP answer came; `llm_refused` with the
 * server's own reason and the setting to change; `llm_context_exceeded` when the request is longer than the model's
 * context (with the window and prompt sizes the server said); `llm_tools_unsupported` when it refuses tools;
 * `llm_rate_limited` for 429; `llm_api` for failures a later try may not have (5xx, an error inside a
 * stream, Groq's tool_use_failed).
 */
export function mapOpenAiError(err: unknown, ctx: ErrorContext): ThreadlabError {
  const mapped = mapError(err, ctx);
  if (ctx.scrub) mapped.message = ctx.scrub(mapped.message);
  return mapped;
}

function mapError(err: unknown, ctx: ErrorContext): ThreadlabError {
  if (err instanceof ThreadlabError) return err;
  const tries = ctx.attempts > 1 ? ` (${ctx.attempts} attempts)` : '';
  if (
    ctx.signal?.aborted ||
    err instanceof OpenAI.APIUserAbortError ||
    (err instanceof Error && err.name === 'AbortError')
  ) {
    return new ThreadlabError('cancelled', 'The model request was cancelled.', { cause: err, isPolicy: true });
  }
  if (err instanceof OpenAI.APIConnectionTimeoutError) {
    return new ThreadlabError(
      'llm_unreachable',
      `The model server at ${ctx.baseUrl} did not answer within ${ctx.requestTimeoutMs} ms${tries}. Raise THREADLAB_LLM_REQUEST_TIMEOUT_MS if the model is slow, or check OPENAI_BASE_URL.`,
      { cause: err, isRetryable: true },
    );
  }
  if (err instanceof OpenAI.APIConnectionError) {
    return new ThreadlabError(
      'llm_unreachable',
      `The model server at ${ctx.baseUrl} could not be reached${tries}: ${err.message}. Check OPENAI_BASE_URL and that the server is running.`,
      { cause: err, isRetryable: true },
    );
  }
  if (err instanceof OpenAI.APIError) {
    const status = err.status;
    const e = serverErrorOfApiError(err);
    // `reason`: the server's own words, for a caller that shows them without the advice around them.
    const details = { status, requestId: err.requestID, serverCode: e.code, reason: e.message };
    if (status === undefined) {
      // An `error` object inside a 200 stream (OpenRouter when the provider fails mid-answer).
      return new ThreadlabError(
        'llm_api',
        `The model server reported an error in the middle of its answer${tries}: ${e.message}`,
        { cause: err, isRetryable: true, details },
      );
    }
    // Before the status classes: llama-server refuses tools without --jinja with a 500, which no retry helps.
    if (status >= 400 && refusesTools(e)) {
      return new ThreadlabError(
        'llm_tools_unsupported',
        `The model server refuses tools for ${ctx.model}: "${e.message}". Set THREADLAB_LLM_TOOLS=auto (or text) to have the model write fenced code blocks instead, or ${toolsHint(e)}.`,
        { cause: err, isPolicy: true, details },
      );
    }
    const context = status >= 400 ? contextRefusalOf(e) : undefined;
    if (context) {
      return new ThreadlabError(
        'llm_context_exceeded',
        `The model server refused the request as too long for the model's context (${status}): "${e.message}". ${CONTEXT_HINT}`,
        { cause: err, isPolicy: true, details: { ...details, ...context } },
      );
    }
    if (status === 429) {
      return new ThreadlabError(
        'llm_rate_limited',
        `The model server is rate limiting requests (429)${tries}: ${e.message}`,
        {
          cause: err,
          isRetryable: true,
          retryAfterMs: retryAfterMs(err.headers),
          details,
        },
      );
    }
    if (status >= 500 || status === 408 || status === 409 || isToolUseFailed(e)) {
      const what = isToolUseFailed(e) ? 'could not read the tool call the model wrote' : `failed (${status})`;
      return new ThreadlabError('llm_api', `The model server ${what}${tries}: ${e.message}`, {
        cause: err,
        isRetryable: true,
        details,
      });
    }
    return new ThreadlabError(
      'llm_refused',
      `The model server refused the request (${status}): "${e.message}". ${refusalHint(status, e, ctx)}`,
      { cause: err, isPolicy: true, details },
    );
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ThreadlabError('llm_api', `The model server's answer could not be used: ${message}`, {
    cause: err,
    isRetryable: true,
  });
}
