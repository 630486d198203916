import OpenAI from 'openai';
import { ThreadlabError } from '../../src/domain/errors.js';

export interface ErrorContext {
  model: string;
  baseUrl: string;
  requestTimeoutMs: number;
  maxRetries: number;
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

/**
 * Converts what the `openai` client threw (after its own retries) into a ThreadlabError once:
 * `cancelled` for an abort, `llm_rate_limited` for 429, `llm_api` for the rest, each with
 * `isRetryable` and a message that says what to check.
 */
export function mapOpenAiError(err: unknown, ctx: ErrorContext): ThreadlabError {
  const mapped = mapError(err, ctx);
  if (ctx.scrub) mapped.message = ctx.scrub(mapped.message);
  return mapped;
}

function mapError(err: unknown, ctx: ErrorContext): ThreadlabError {
  if (err instanceof ThreadlabError) return err;
  const tries = `after ${ctx.maxRetries + 1} attempt${ctx.maxRetries === 0 ? '' : 's'}`;
  if (
    ctx.signal?.aborted ||
    err instanceof OpenAI.APIUserAbortError ||
    (err instanceof Error && err.name === 'AbortError')
  ) {
    return new ThreadlabError('cancelled', 'The model request was cancelled.', { cause: err, isPolicy: true });
  }
  if (err instanceof OpenAI.APIConnectionTimeoutError) {
    return new ThreadlabError(
      'llm_api',
      `The model API at ${ctx.baseUrl} did not answer within ${ctx.requestTimeoutMs} ms ${tries}; raise THREADLAB_LLM_REQUEST_TIMEOUT_MS if the model is slow.`,
      { cause: err, isRetryable: true },
    );
  }
  if (err instanceof OpenAI.APIConnectionError) {
    return new ThreadlabError(
      'llm_api',
      `Could not connect to the model API at ${ctx.baseUrl} ${tries}: ${err.message}. Check OPENAI_BASE_URL.`,
      { cause: err, isRetryable: true },
    );
  }
  if (err instanceof OpenAI.APIError) {
    const status = err.status;
    const details = { status, requestId: err.requestID };
    if (status === 429) {
      return new ThreadlabError(
        'llm_rate_limited',
        `The model API is rate limiting requests (429) ${tries}: ${err.message}`,
        { cause: err, isRetryable: true, retryAfterMs: retryAfterMs(err.headers), details },
      );
    }
    const hint =
      status === 401 || status === 403
        ? ' Check OPENAI_API_KEY.'
        : status === 404
          ? ` Check OPENAI_MODEL (${ctx.model}) and OPENAI_BASE_URL.`
          : status !== undefined && status >= 500
            ? ' The service is failing; try again later.'
            : '';
    const retryable = status === undefined || status >= 500 || status === 408 || status === 409;
    return new ThreadlabError(
      'llm_api',
      `The model API answered ${status ?? 'with an error'} ${tries}: ${err.message}.${hint}`,
      { cause: err, isRetryable: retryable, details },
    );
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ThreadlabError('llm_api', `The model API response could not be used: ${message}`, {
    cause: err,
    isRetryable: true,
  });
}
