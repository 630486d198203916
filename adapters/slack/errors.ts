import { WebAPIPlatformError, WebAPIRateLimitedError, WebAPIRequestError } from '@slack/web-api';
import { ThreadlabError } from '../../src/domain/errors.js';

/** Converts a Web API failure into a ThreadlabError once, at the adapter's boundary. */
export function toSlackError(err: unknown, method: string): ThreadlabError {
  if (err instanceof ThreadlabError) return err;
  if (err instanceof WebAPIRateLimitedError) {
    return new ThreadlabError('platform_rate_limited', `Slack rate-limited ${method}; retry in ${err.retryAfter} s.`, {
      cause: err,
      isRetryable: true,
      retryAfterMs: err.retryAfter * 1000,
    });
  }
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof WebAPIRequestError && /rate limit/i.test(message)) {
    return new ThreadlabError('platform_rate_limited', `Slack kept rate-limiting ${method} after retries.`, {
      cause: err,
      isRetryable: true,
    });
  }
  if (err instanceof WebAPIPlatformError) {
    return new ThreadlabError('platform_api', `Slack refused ${method}: ${err.data.error}.`, {
      cause: err,
      details: { error: err.data.error },
    });
  }
  return new ThreadlabError('platform_api', `Slack call ${method} failed: ${message}`, {
    cause: err,
    isRetryable: true,
  });
}
