import { setTimeout as sleep } from 'node:timers/promises';
import { ThreadlabError } from '../domain/errors.js';

/** Keys held at once; past this the one that ends soonest is let go (it is learned again from its next 429). */
const DEFAULT_MAX_KEYS = 1000;
/** A 429 without a usable Retry-After still holds: neither platform resets sooner than a second. */
const DEFAULT_HOLD_MS = 1000;

export interface RateHoldsOptions {
  /** Held keys remembered at most. @defaultValue 1000 */
  maxKeys?: number;
}

/**
 * The one rate-limit rule of every platform adapter: a 429's Retry-After holds later calls to what it limited
 * (a Slack Web API method, a Discord bucket) until it passes, and a global limit holds every call. The platform
 * says what a key is; this only keeps the times. Bounded, and swept of holds that ended.
 */
export class RateHolds {
  private readonly untilMs = new Map<string, number>();
  private globalUntilMs = 0;
  private readonly maxKeys: number;

  constructor(options: RateHoldsOptions = {}) {
    this.maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
  }

  /** Holds `key` for `retryAfterMs` from now (a later, longer hold wins; a shorter one never shortens it). */
  hold(key: string, retryAfterMs: number): void {
    const until = Date.now() + retryAfterMs;
    this.sweep();
    this.untilMs.set(key, Math.max(until, this.untilMs.get(key) ?? 0));
    if (this.untilMs.size > this.maxKeys) {
      const soonest = [...this.untilMs].reduce((a, b) => (b[1] < a[1] ? b : a));
      this.untilMs.delete(soonest[0]);
    }
  }

  /** Holds every key (a global limit) for `retryAfterMs` from now. */
  holdAll(retryAfterMs: number): void {
    this.globalUntilMs = Math.max(this.globalUntilMs, Date.now() + retryAfterMs);
  }

  /** How long a call on `key` must still wait, in ms; 0 when nothing holds it. */
  waitMs(key: string): number {
    const until = Math.max(this.globalUntilMs, this.untilMs.get(key) ?? 0);
    return Math.max(0, until - Date.now());
  }

  /** How many keys are held (for tests of the bound). */
  get size(): number {
    return this.untilMs.size;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, until] of this.untilMs) if (until <= now) this.untilMs.delete(key);
  }
}

/**
 * A `Retry-After` header's wait in ms (whole or fractional seconds), at least a second; the default when the
 * header is missing, zero or not a number.
 */
export function retryAfterMs(header: string | null | undefined, fallbackMs = DEFAULT_HOLD_MS): number {
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds > 0 ? Math.max(DEFAULT_HOLD_MS, seconds * 1000) : fallbackMs;
}

export interface PassHoldOptions {
  /** What is still to wait, from {@link RateHolds.waitMs}. */
  waitMs: number;
  /**
   * A live-status write (a status edit, a stream append): refused at once rather than waited for, so the answer
   * behind it is never delayed by a status. @defaultValue false
   */
  liveStatus?: boolean;
  /** Which platform, for the error's words. */
  platform: string;
  /** What is held (the method or bucket), for the error's words. */
  what: string;
  signal?: AbortSignal;
}

/**
 * Applies the rule before a call: nothing held, go; a live status met by a hold throws `platform_rate_limited`
 * with its `retryAfterMs` (the status writer tries again later, only while its job runs); anything else (the
 * answer) waits the hold out, or until `signal` aborts.
 */
export async function passHold(options: PassHoldOptions): Promise<void> {
  if (options.waitMs <= 0) return;
  if (options.liveStatus)
    throw new ThreadlabError(
      'platform_rate_limited',
      `${options.platform}: ${options.what} is rate-limited for ${options.waitMs} ms more; the live status skips this write`,
      { isRetryable: true, retryAfterMs: options.waitMs },
    );
  await sleep(options.waitMs, undefined, options.signal ? { signal: options.signal } : {});
}
