import type { FetchFunction } from '@slack/web-api';

type FetchResponse = Awaited<ReturnType<FetchFunction>>;
import { passHold, retryAfterMs, type RateHolds } from '../../src/replies/rate-holds.js';

/** Longest an answer waits for a held method before it is sent anyway (Slack answers a 429 then, which the client waits out). */
const DEFAULT_MAX_WAIT_MS = 60_000;

export interface HeldFetchOptions {
  /** The bot's holds, shared by every client of the one bot token (Slack limits per method and workspace). */
  holds: RateHolds;
  /**
   * This client writes live statuses: a call to a held method is answered at once with a 429 of the time left, which
   * `@slack/web-api` with `rejectRateLimitedCalls` turns into its rate-limited error, so the sink skips the write.
   * @defaultValue false
   */
  liveStatus?: boolean;
  /** Longest an answer's call waits for a hold, in ms. @defaultValue 60000 */
  maxWaitMs?: number;
  /** @defaultValue globalThis.fetch */
  fetch?: FetchFunction;
}

/**
 * The `fetch` of a `WebClient`, holding Web API methods after a 429 (Slack's limits are per method and workspace;
 * its 429 carries `Retry-After` in seconds). Without it, a 429 met by one client (the status writer) left the
 * other (the answer) free to call the same method again within milliseconds. It does not fight the client's own
 * retry: `@slack/web-api` itself waits out Retry-After before its retry (pausing its queue), so by then the hold
 * has passed and the retry goes straight out.
 */
export function heldFetch(options: HeldFetchOptions): FetchFunction {
  const base: FetchFunction =
    options.fetch ?? (async (input, init) => (await globalThis.fetch(input, init)) as unknown as FetchResponse);
  const maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  return async (input, init) => {
    const method = methodOf(String(input));
    const waitMs = options.holds.waitMs(method);
    if (waitMs > 0 && options.liveStatus) return refused(waitMs);
    await passHold({
      waitMs: Math.min(waitMs, maxWaitMs),
      platform: 'Slack',
      what: method,
      ...(init?.signal ? { signal: init.signal } : {}),
    });
    const res = await base(input, init);
    if (res.status === 429) options.holds.hold(method, retryAfterMs(res.headers.get('retry-after')));
    return res;
  };
}

/** A Web API method's name from its URL (`…/api/chat.postMessage` → `chat.postMessage`). */
export function methodOf(url: string): string {
  const path = URL.canParse(url) ? new URL(url).pathname : url;
  return path.slice(path.lastIndexOf('/') + 1);
}

/** What Slack itself would answer: a 429 with the whole seconds left. */
function refused(waitMs: number): FetchResponse {
  const res = new Response(JSON.stringify({ ok: false, error: 'ratelimited' }), {
    status: 429,
    headers: { 'content-type': 'application/json', 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) },
  });
  return res as unknown as FetchResponse;
}
