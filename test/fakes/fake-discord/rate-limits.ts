import { createHash } from 'node:crypto';
import type { RestResult } from './rest.js';

/** Where a request's rate limit is counted: Discord's bucket hash (method and route) and its major parameter. */
interface Bucket {
  hash: string;
  major: string;
}

const BUCKET_LIMIT = 5;

/**
 * Discord's per-route rate limits as the real service reports them: every response of a limited route
 * carries `X-RateLimit-Bucket` (one hash per method and route, shared by all channels) and the
 * `X-RateLimit-*` counters; a 429 holds that bucket, for that channel or webhook, until its reset, and a
 * request sent before then gets another 429 (each one counts toward Discord's invalid-request ban).
 */
export class FakeRateLimits {
  /** Epoch ms until which a bucket (`hash:major`) answers 429. */
  private readonly heldUntilMs = new Map<string, number>();

  /** The headers Discord puts on a successful response of this route (none for unlimited routes). */
  headers(method: string, path: string): Record<string, string> {
    const bucket = bucketOf(method, path);
    if (!bucket) return {};
    return {
      'x-ratelimit-bucket': bucket.hash,
      'x-ratelimit-limit': String(BUCKET_LIMIT),
      'x-ratelimit-remaining': String(BUCKET_LIMIT - 1),
      'x-ratelimit-reset-after': '1',
      'x-ratelimit-reset': ((Date.now() + 1000) / 1000).toFixed(3),
    };
  }

  /** A 429 while the request's bucket is still held by an earlier one, else undefined. */
  refusal(method: string, path: string): RestResult | undefined {
    const bucket = bucketOf(method, path);
    const until = bucket ? this.heldUntilMs.get(`${bucket.hash}:${bucket.major}`) : undefined;
    if (!bucket || until === undefined || until <= Date.now()) return undefined;
    return tooManyRequests(bucket, (until - Date.now()) / 1000);
  }

  /** Answers 429 now and holds the request's bucket for `retryAfterS`. */
  limit(method: string, path: string, retryAfterS: number): RestResult {
    const bucket = bucketOf(method, path) ?? { hash: 'unbucketed', major: path };
    this.heldUntilMs.set(`${bucket.hash}:${bucket.major}`, Date.now() + retryAfterS * 1000);
    return tooManyRequests(bucket, retryAfterS);
  }
}

function tooManyRequests(bucket: Bucket, retryAfterS: number): RestResult {
  const seconds = Math.round(retryAfterS * 1000) / 1000;
  return {
    status: 429,
    body: { message: 'You are being rate limited.', retry_after: seconds, global: false },
    headers: {
      // Discord rounds the Retry-After header up to whole seconds; the body and Reset-After are exact.
      'retry-after': String(Math.ceil(seconds)),
      'x-ratelimit-bucket': bucket.hash,
      'x-ratelimit-limit': String(BUCKET_LIMIT),
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset-after': String(seconds),
      'x-ratelimit-reset': ((Date.now() + seconds * 1000) / 1000).toFixed(3),
      'x-ratelimit-scope': 'user',
    },
  };
}

/** The bucket of a channel or webhook route; other routes (gateway, users, interactions) are left unlimited. */
function bucketOf(method: string, path: string): Bucket | undefined {
  const channel = /^\/channels\/(\d+)(.*)$/.exec(path);
  const webhook = /^\/webhooks\/(\d+)\/([^/]+)(.*)$/.exec(path);
  const [major, rest] = channel
    ? [`channels/${channel[1]}`, channel[2] ?? '']
    : webhook
      ? [`webhooks/${webhook[1]}/${webhook[2]}`, webhook[3] ?? '']
      : [undefined, ''];
  if (!major) return undefined;
  const route = `${method} ${major.split('/')[0]}${rest.replace(/\/\d+/g, '/:id')}`;
  return { hash: createHash('sha1').update(route).digest('hex').slice(0, 32), major };
}
