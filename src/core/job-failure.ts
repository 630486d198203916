import { isThreadlabError, type ThreadlabError } from '../domain/errors.js';

/** Whether the queue aborted the job because this process is shutting down (a retryable cancel). */
export function isShutdown(signal: AbortSignal): boolean {
  return signal.aborted && isThreadlabError(signal.reason, 'cancelled') && signal.reason.isRetryable;
}

/** What the user reads when a job fails for a reason that is not their code. */
export function userFacing(error: ThreadlabError): string {
  switch (error.code) {
    case 'cancelled':
      return 'Stopped.';
    case 'docker_unreachable':
    case 'sandbox_image_missing':
    case 'sandbox_start_failed':
      return `The code sandbox is unavailable right now (${error.code}). An operator can run \`threadlab doctor\` to see why.`;
    default:
      return error.isPolicy
        ? error.message
        : `Something went wrong on our side (${error.code}); nothing of yours was lost. Please try again.`;
  }
}
