import { isThreadlabError, type ErrorCode } from '../../src/domain/errors.js';
import { WebRequestError } from './map-request.js';

/** What the API answers for a failure: the status, a stable code and a message safe to show anyone. */
export interface ApiError {
  status: number;
  code: string;
  message: string;
  /** Whether the failure is ours (logged at error level with its detail) rather than the client's. */
  isServerFault: boolean;
}

/** Infrastructure failures by code: what a user may be told. Their raw messages (hosts, ports, stacks) stay in the log. */
const SAFE_MESSAGES: Partial<Record<ErrorCode, { status: number; message: string }>> = {
  redis_unreachable: { status: 503, message: 'The message queue is unavailable right now; try again in a moment.' },
  queue_full: { status: 503, message: 'Too many messages are waiting; try again in a moment.' },
  rate_limited: { status: 429, message: 'Too many messages; wait a moment before sending more.' },
  docker_unreachable: { status: 503, message: 'The code sandbox is unavailable right now; try again in a moment.' },
  sandbox_start_failed: { status: 503, message: 'The code sandbox is unavailable right now; try again in a moment.' },
};

/**
 * Converts anything a route threw into its answer, once. Request errors and policy refusals carry
 * messages written for users; any other failure answers with its stable code and a generic message.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof WebRequestError) {
    return { status: err.status, code: err.code, message: err.message, isServerFault: err.status >= 500 };
  }
  if (isThreadlabError(err)) {
    if (err.isPolicy) return { status: 400, code: err.code, message: err.message, isServerFault: false };
    const safe = SAFE_MESSAGES[err.code];
    if (safe) return { ...safe, code: err.code, isServerFault: safe.status >= 500 };
    return { status: 500, code: err.code, message: 'The server failed to answer; see its log.', isServerFault: true };
  }
  return { status: 500, code: 'internal', message: 'The server failed to answer; see its log.', isServerFault: true };
}
