import { timingSafeEqual } from 'node:crypto';
import { isLoopbackHost } from '../../src/domain/loopback.js';
import { parseRequestUrl } from './request-url.js';

/** The cookie the page carries its token in. */
export const TOKEN_COOKIE = 'threadlab_token';

export { isLoopbackHost } from '../../src/domain/loopback.js';

/** The parts of a request that authentication looks at. */
export interface AuthRequest {
  method: string;
  /** Path and query, as in `IncomingMessage.url`. */
  url: string;
  headers: { authorization?: string; cookie?: string; host?: string; origin?: string };
}

export type AuthDecision =
  { ok: true; setCookie?: string; redirectTo?: string } | { ok: false; status: 401 | 403; reason: string };

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k !== name) continue;
    try {
      return decodeURIComponent(v.join('='));
    } catch {
      return undefined; // malformed percent-encoding is no token at all, not a crash
    }
  }
  return undefined;
}

function hostName(hostHeader: string): string {
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1);
  return hostHeader.split(':')[0] ?? '';
}

/**
 * Decides whether a request may proceed.
 * - With a token: `Authorization: Bearer <token>` or the cookie; a page load with `?token=` sets the
 *   cookie (HttpOnly, SameSite=Strict) and redirects to the same path without it.
 * - Without a token (loopback only): the Host header must name a loopback host, so a DNS-rebinding
 *   page cannot drive the API.
 * - State-changing requests with an `Origin` header must come from the same host.
 */
export function authorize(req: AuthRequest, options: { token?: string }): AuthDecision {
  const host = req.headers.host ?? '';
  const unsafe = !['GET', 'HEAD', 'OPTIONS'].includes(req.method);
  if (unsafe && req.headers.origin !== undefined) {
    let originHost = '';
    try {
      originHost = new URL(req.headers.origin).host;
    } catch {
      // an unparsable Origin never matches
    }
    if (originHost !== host) return { ok: false, status: 403, reason: 'cross-origin request refused' };
  }
  if (options.token === undefined) {
    if (!isLoopbackHost(hostName(host))) return { ok: false, status: 403, reason: 'unexpected Host header' };
    return { ok: true };
  }
  const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
  if (bearer !== undefined && sameSecret(bearer, options.token)) return { ok: true };
  const cookie = cookieValue(req.headers.cookie, TOKEN_COOKIE);
  if (cookie !== undefined && sameSecret(cookie, options.token)) return { ok: true };
  const url = parseRequestUrl(req.url);
  const query = url?.searchParams.get('token') ?? null;
  if (url && query !== null && req.method === 'GET' && sameSecret(query, options.token)) {
    url.searchParams.delete('token');
    const rest = url.searchParams.toString();
    return {
      ok: true,
      setCookie: `${TOKEN_COOKIE}=${encodeURIComponent(options.token)}; HttpOnly; SameSite=Strict; Path=/`,
      redirectTo: `${url.pathname}${rest ? `?${rest}` : ''}`,
    };
  }
  return {
    ok: false,
    status: 401,
    reason: 'a token is required: open the page with ?token=… or send Authorization: Bearer …',
  };
}
