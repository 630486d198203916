import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../src/logger.js';
import { authorize } from './auth.js';
import { matchRoute, securityHeaders, sendError, type Route } from './http-util.js';
import { WebRequestError } from './map-request.js';

export interface WebServerOptions {
  host: string;
  port: number;
  token?: string;
  routes: Route[];
  logger: Logger;
}

function unauthorizedPage(res: ServerResponse, status: number, reason: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(
    `<!doctype html><title>Threadlab</title><h1>${status === 401 ? 'Token required' : 'Forbidden'}</h1><p>${reason}</p>`,
  );
}

/** The HTTP server of the web chat: authentication, routing and error mapping, nothing else. */
export class WebServer {
  private server: Server | undefined;

  constructor(private readonly options: WebServerOptions) {}

  async listen(): Promise<AddressInfo> {
    const server = createServer((req, res) => void this.handle(req, res));
    server.requestTimeout = 0; // SSE streams stay open; uploads are bounded by size instead
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return server.address() as AddressInfo;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    securityHeaders(res);
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://local');
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
      { token: this.options.token },
    );
    if (!decision.ok) {
      this.options.logger.warn({ path: url.pathname, status: decision.status }, 'web request refused');
      return isApi
        ? sendError(res, decision.status, 'unauthorized', decision.reason)
        : unauthorizedPage(res, decision.status, decision.reason);
    }
    if (decision.setCookie) res.setHeader('set-cookie', decision.setCookie);
    if (decision.redirectTo && !isApi) {
      res.writeHead(303, { location: decision.redirectTo });
      return void res.end();
    }
    const match = matchRoute(this.options.routes, method, url.pathname);
    if (match === undefined) return sendError(res, 404, 'not_found', `No route for ${url.pathname}.`);
    if (match === 'methodMismatch')
      return sendError(res, 405, 'method_not_allowed', `${method} is not allowed on ${url.pathname}.`);
    try {
      await match.route.handle({ req, res, url, params: match.params });
    } catch (err) {
      if (res.headersSent) {
        res.destroy();
      } else if (err instanceof WebRequestError) {
        if (err.status === 413) res.setHeader('connection', 'close');
        sendError(res, err.status, err.code, err.message);
      } else {
        this.options.logger.error({ err, path: url.pathname }, 'web request failed');
        sendError(res, 500, 'internal', 'The server failed to answer; see its log.');
      }
    }
  }
}
