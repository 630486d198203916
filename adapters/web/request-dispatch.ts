import type { IncomingMessage, ServerResponse } from 'node:http';
import { authorize } from './auth.js';
import { matchRoute, securityHeaders, sendError, type Route } from './http-util.js';
import { WebRequestError } from './map-request.js';
import { parseRequestUrl } from './request-url.js';
import type { Logger } from '../../src/logger.js';

function unauthorizedPage(res: ServerResponse, status: number, reason: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(
    `<!doctype html><title>Threadlab</title><h1>${status === 401 ? 'Token required' : 'Forbidden'}</h1><p>${reason}</p>`,
  );
}

/**
 * One request: authentication, routing, then the route. Async from its first line, so whatever
 * fails in it (a malformed URL, cookie or body) is a rejection the server answers, never a throw.
 */
export async function dispatchRequest(
  req: IncomingMessage,
  res: ServerResponse,
  options: { token?: string; routes: Route[]; logger: Logger },
): Promise<void> {
  securityHeaders(res);
  const method = req.method ?? 'GET';
  const url = parseRequestUrl(req.url);
  if (!url) throw new WebRequestError(400, 'The request path is not a valid URL path.', 'bad_request');
  const isApi = url.pathname.startsWith('/api/');
  const decision = authorize(
    {
      method,
      url: req.url ?? '/',
      headers: {
        authorization: req.headers.authorization,
        cookie: req.headers.cookie,
        host: req.headers.host,
        origin: req.headers.origin,
      },
    },
    { token: options.token },
  );
  if (!decision.ok) {
    options.logger.warn({ path: url.pathname.slice(0, 200), status: decision.status }, 'web request refused');
    return isApi
      ? sendError(res, decision.status, 'unauthorized', decision.reason)
      : unauthorizedPage(res, decision.status, decision.reason);
  }
  if (decision.setCookie) res.setHeader('set-cookie', decision.setCookie);
  if (decision.redirectTo && !isApi) {
    res.writeHead(303, { location: decision.redirectTo });
    return void res.end();
  }
  const match = matchRoute(options.routes, method, url.pathname);
  if (match === undefined) throw new WebRequestError(404, 'No such path.', 'not_found');
  if (match === 'methodMismatch')
    throw new WebRequestError(405, `${method} is not allowed here.`, 'method_not_allowed');
  await match.route.handle({ req, res, url, params: match.params });
}
