/** Response headers as @discordjs/rest's `ResponseLike` carries them. */
export interface RateLimitedResponse {
  status: number;
  headers: { get(name: string): string | null };
}

/** Routes whose bucket hash is remembered; past this the oldest is forgotten (it is learned again). */
const MAX_ROUTES = 500;

/**
 * Discord buckets held by a 429 until their reset, checked before every request of the bot's one REST
 * client. @discordjs/rest keeps a bucket's state on a handler found by the bucket hash it learned for the
 * route; when a route's first response is the 429, the hash that response carries sends the next request
 * to a new handler that knows nothing of the limit, and that request goes out at once into a second 429
 * (each counts toward Discord's invalid-request ban). Holding by Discord's own bucket hash here closes
 * that gap whichever handler, and whichever part of the bot, sends.
 */
export class BucketHolds {
  /** `METHOD route` → Discord's bucket hash (`X-RateLimit-Bucket`). */
  private readonly hashes = new Map<string, string>();
  /** `bucket:major` → epoch ms until which it is held. */
  private readonly heldUntilMs = new Map<string, number>();
  private globalUntilMs = 0;

  /** How long a request must still wait before it may be sent, in ms; 0 when its bucket is free. */
  waitMs(method: string, url: string): number {
    const now = Date.now();
    const { route, major } = routeOf(method, url);
    const bucket = this.hashes.get(route) ?? route;
    const until = Math.max(this.globalUntilMs, this.heldUntilMs.get(`${bucket}:${major}`) ?? 0);
    return Math.max(0, until - now);
  }

  /** Learns a response's bucket hash and, from a 429, holds its bucket (every bucket, for a global limit). */
  learn(method: string, url: string, res: RateLimitedResponse): void {
    const { route, major } = routeOf(method, url);
    const hash = res.headers.get('x-ratelimit-bucket');
    if (hash) this.remember(route, hash);
    if (res.status !== 429) return;
    const seconds = Math.max(
      Number(res.headers.get('retry-after')) || 0,
      Number(res.headers.get('x-ratelimit-reset-after')) || 0,
    );
    // A 429 without any wait is still not to be repeated at once: Discord's smallest reset is a second.
    const untilMs = Date.now() + (seconds > 0 ? seconds * 1000 : 1000);
    if (res.headers.get('x-ratelimit-global') !== null) {
      this.globalUntilMs = Math.max(this.globalUntilMs, untilMs);
      return;
    }
    this.sweep();
    for (const bucket of new Set([route, hash ?? route])) this.heldUntilMs.set(`${bucket}:${major}`, untilMs);
  }

  private remember(route: string, hash: string): void {
    this.hashes.delete(route);
    this.hashes.set(route, hash);
    if (this.hashes.size > MAX_ROUTES) this.hashes.delete(this.hashes.keys().next().value as string);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, until] of this.heldUntilMs) if (until <= now) this.heldUntilMs.delete(key);
  }
}

/**
 * A request's route (method and path with ids generalised) and its major parameter (the channel, guild
 * or webhook it counts against), as Discord groups rate limits.
 */
function routeOf(method: string, url: string): { route: string; major: string } {
  const path = new URL(url).pathname.replace(/^.*?\/v\d+(?=\/)/, '');
  const m = /^\/(channels|guilds)\/(\d+)(.*)$/.exec(path) ?? /^\/(webhooks)\/(\d+\/[^/]+)(.*)$/.exec(path);
  const [kind, major, rest] = m ? [m[1] ?? '', m[2] ?? '', m[3] ?? ''] : ['', '', path];
  return { route: `${method.toUpperCase()} ${kind}${rest.replace(/\/\d{5,}/g, '/:id')}`, major };
}
