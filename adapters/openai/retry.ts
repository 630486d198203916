/** Longest wait honoured from a server's retry-after, in ms; past it the failure is reported. */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * How long to wait before try `attempt + 1`: the server's retry-after when it gave one (at most
 * {@link MAX_RETRY_AFTER_MS}), else 0.5 s doubling per try up to 8 s, with a quarter of jitter.
 */
export function retryDelayMs(attempt: number, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined && retryAfterMs >= 0) return Math.min(retryAfterMs, MAX_RETRY_AFTER_MS);
  const base = Math.min(8_000, 500 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (1 - Math.random() * 0.25));
}

/** Waits `ms`, or less when `signal` aborts first. */
export function sleepUnlessAborted(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
