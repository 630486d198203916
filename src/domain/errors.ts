/**
 * Stable codes of infrastructure and policy failures. A failure of the user's code is never one of
 * these: it is data in an ExecutionResult.
 */
export type ErrorCode =
  | 'config_invalid'
  | 'docker_unreachable'
  | 'sandbox_image_missing'
  | 'sandbox_runtime_missing'
  | 'sandbox_start_failed'
  | 'sandbox_protocol'
  | 'sandbox_timeout'
  | 'sandbox_busy'
  | 'sandbox_file_rejected'
  | 'llm_not_configured'
  | 'llm_api'
  | 'llm_unreachable'
  | 'llm_refused'
  /** The server refused the request as longer than the model's context window (details: windowTokens, requestedTokens). */
  | 'llm_context_exceeded'
  | 'llm_tools_unsupported'
  | 'llm_rate_limited'
  | 'llm_budget_exhausted'
  | 'platform_api'
  | 'platform_rate_limited'
  | 'attachment_rejected'
  | 'queue_full'
  | 'rate_limited'
  | 'budget_exceeded'
  | 'cancelled'
  | 'redis_unreachable'
  | 'internal';

export interface ThreadlabErrorOptions {
  cause?: unknown;
  /** Whether trying the same operation again may succeed. @defaultValue false */
  isRetryable?: boolean;
  /** How long to wait before a retry, when the failing side said so. */
  retryAfterMs?: number;
  /** A policy refusal: reply to the user and do not retry the job. @defaultValue false */
  isPolicy?: boolean;
  /** Extra structured facts for logs (never secrets). */
  details?: Record<string, unknown>;
}

/** The one error class of Threadlab; `code` says which failure it is and messages say what to do. */
export class ThreadlabError extends Error {
  readonly code: ErrorCode;
  readonly isRetryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly isPolicy: boolean;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: ThreadlabErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ThreadlabError';
    this.code = code;
    this.isRetryable = options.isRetryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
    this.isPolicy = options.isPolicy ?? false;
    this.details = options.details;
  }

  toJSON(): Record<string, unknown> {
    return { code: this.code, message: this.message, isRetryable: this.isRetryable, retryAfterMs: this.retryAfterMs };
  }
}

export function isThreadlabError(err: unknown, code?: ErrorCode): err is ThreadlabError {
  return err instanceof ThreadlabError && (code === undefined || err.code === code);
}

/** Converts anything thrown into a ThreadlabError once, at a boundary. */
export function toThreadlabError(err: unknown): ThreadlabError {
  if (err instanceof ThreadlabError) return err;
  if (err instanceof Error && err.name === 'AbortError') {
    return new ThreadlabError('cancelled', 'The run was cancelled.', { cause: err, isPolicy: true });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ThreadlabError('internal', `Unexpected failure: ${message}`, { cause: err });
}
