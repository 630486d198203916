import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { WebRequestError } from './map-request.js';

/** The Content-Security-Policy of every response: nothing but this server, no inline script or style. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "img-src 'self' data: blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

/** Headers set on every response. */
export function securityHeaders(res: ServerResponse): void {
  res.setHeader('content-security-policy', CONTENT_SECURITY_POLICY);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('x-frame-options', 'DENY');
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const data = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(data);
}

export function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, status, { error: { code, message } });
}

/**
 * The chunks of a request body, for `for await`. Leaving the loop early (a limit was passed) must not
 * destroy the request as the default iterator does: that resets the connection before the refusal is
 * sent. Left unread, the rest is discarded by the server after the answer (Node dumps it).
 */
export function bodyChunks(req: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
  const readable = req as AsyncIterable<Buffer> & {
    iterator?: (options: { destroyOnReturn: boolean }) => AsyncIterableIterator<Buffer>;
  };
  if (typeof readable.iterator !== 'function') return req;
  const iterator = readable.iterator.bind(readable);
  return { [Symbol.asyncIterator]: () => iterator({ destroyOnReturn: false }) };
}

/**
 * Reads a whole body, refusing (413) more than `maxBytes`: at once when the request declares a larger
 * `content-length`, else as soon as the bytes received pass it.
 */
export async function readBody(
  req: AsyncIterable<Buffer> & { headers?: IncomingHttpHeaders },
  maxBytes: number,
): Promise<Buffer> {
  const tooLarge = () => new WebRequestError(413, `The request is larger than ${maxBytes} bytes.`, 'too_large');
  if (Number(req.headers?.['content-length'] ?? '0') > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of bodyChunks(req)) {
    total += chunk.length;
    if (total > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** A route: method, a path pattern with `:name` segments, and its handler. */
export interface Route {
  method: string;
  pattern: string;
  handle: (ctx: RouteContext) => Promise<void> | void;
}

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Record<string, string>;
}

/** Finds the route of a request; `methodMismatch` when only the method differs (405). */
export function matchRoute(
  routes: Route[],
  method: string,
  pathname: string,
): { route: Route; params: Record<string, string> } | 'methodMismatch' | undefined {
  const segments = pathname.split('/');
  let pathMatched = false;
  for (const route of routes) {
    const parts = route.pattern.split('/');
    if (parts.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < parts.length && ok; i++) {
      const part = parts[i]!;
      const seg = segments[i]!;
      if (part.startsWith(':')) {
        try {
          params[part.slice(1)] = decodeURIComponent(seg);
        } catch {
          ok = false;
        }
        ok = ok && seg !== '';
      } else ok = part === seg;
    }
    if (!ok) continue;
    pathMatched = true;
    if (route.method === method || (route.method === 'GET' && method === 'HEAD')) return { route, params };
  }
  return pathMatched ? 'methodMismatch' : undefined;
}
