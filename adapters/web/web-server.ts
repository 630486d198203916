import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Logger } from '../../src/logger.js';
import { toApiError } from './api-errors.js';
import { sendError, type Route } from './http-util.js';
import { dispatchRequest } from './request-dispatch.js';

/** Connection and time limits of the HTTP server. */
export interface WebServerLimits {
  /**
   * Open connections served (event streams included); a request on a connection past it is answered
   * 503 and the connection closed. @defaultValue 1500
   */
  maxConnections?: number;
  /** Connections past `maxConnections` accepted only to be refused; beyond them new ones are closed at once. @defaultValue 64 */
  refusalConnections?: number;
  /** Time a client has to send its request headers. @defaultValue 10000 */
  headersTimeoutMs?: number;
  /**
   * Time a client has to send a whole request, body included (a 100 MB upload at 400 kB/s). Event
   * streams are not affected: their request is complete once the headers arrived. @defaultValue 300000
   */
  requestTimeoutMs?: number;
  /** How long an idle keep-alive connection stays open. @defaultValue 5000 */
  keepAliveTimeoutMs?: number;
  /**
   * Bytes of a refused request's body still read and dropped after the refusal was sent, so the client
   * reads the refusal rather than a connection reset under its upload; past it the connection is closed.
   * @defaultValue 268435456 (256 MiB, more than the largest request the API accepts)
   */
  maxRefusedBodyBytes?: number;
}

export interface WebServerOptions {
  host: string;
  port: number;
  token?: string;
  routes: Route[];
  logger: Logger;
  limits?: WebServerLimits;
}

/** The HTTP server of the web chat: limits, and one catch around everything a request does. */
export class WebServer {
  private server: Server | undefined;
  private openConnections = 0;

  constructor(private readonly options: WebServerOptions) {}

  async listen(): Promise<AddressInfo> {
    const limits = this.options.limits ?? {};
    // Node checks both request timeouts on this interval; its default (30 s) lets them overrun by that much.
    const server = createServer({ connectionsCheckingInterval: 1000 }, (req, res) => this.serve(req, res));
    server.maxConnections = (limits.maxConnections ?? 1500) + (limits.refusalConnections ?? 64);
    server.on('connection', (socket: Socket) => {
      this.openConnections += 1;
      socket.once('close', () => (this.openConnections -= 1));
    });
    server.headersTimeout = limits.headersTimeoutMs ?? 10_000;
    server.requestTimeout = limits.requestTimeoutMs ?? 300_000;
    server.keepAliveTimeout = limits.keepAliveTimeoutMs ?? 5_000;
    server.on('clientError', (err, socket) => {
      this.options.logger.debug({ err }, 'malformed or timed-out HTTP request');
      const timedOut = (err as NodeJS.ErrnoException).code === 'ERR_HTTP_REQUEST_TIMEOUT';
      const status = timedOut ? '408 Request Timeout' : '400 Bad Request';
      if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
      else socket.destroy();
    });
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

  /**
   * A refused body may be partly unread: it is read and dropped, within the request timeout and up to
   * `maxRefusedBodyBytes`, so the client reads the refusal instead of a connection reset under its
   * upload. Node closes a `Connection: close` request's socket as soon as the answer is written, while
   * the client is still sending: the answer says keep-alive instead, and the client closes once it read it.
   */
  private discardRest(req: IncomingMessage, res: ServerResponse): void {
    const maxBytes = this.options.limits?.maxRefusedBodyBytes ?? 256 * 1024 * 1024;
    let discarded = 0;
    res.setHeader('connection', 'keep-alive');
    req.on('data', (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > maxBytes) req.socket.destroy();
    });
    req.resume();
  }

  /**
   * Everything a request does runs inside one promise whose rejection is caught here: no request,
   * however malformed, can end the process; its failure is one answer and one log line.
   */
  private serve(req: IncomingMessage, res: ServerResponse): void {
    const log = this.options.logger;
    const maxConnections = this.options.limits?.maxConnections ?? 1500;
    if (this.openConnections > maxConnections) return refuseBusy(res, maxConnections);
    req.on('error', (err) => log.debug({ err }, 'web request stream failed'));
    res.on('error', (err) => log.debug({ err }, 'web response stream failed'));
    dispatchRequest(req, res, this.options).catch((err: unknown) => {
      try {
        const answer = toApiError(err);
        const path = (req.url ?? '').slice(0, 200);
        if (answer.isServerFault) log.error({ err, path }, 'web request failed');
        else log.info({ path, status: answer.status, code: answer.code }, 'web request refused');
        if (res.headersSent) return void res.destroy();
        if (!req.complete) this.discardRest(req, res);
        // A refusal for load frees its connection at once rather than holding a descriptor idle.
        else if (answer.status === 503 || answer.status === 429) res.setHeader('connection', 'close');
        sendError(res, answer.status, answer.code, answer.message);
      } catch (failure) {
        log.error({ err: failure }, 'web error answer failed');
        res.destroy();
      }
    });
  }
}

/** The answer on a connection past the cap: plain text, and the connection closed. */
function refuseBusy(res: ServerResponse, maxConnections: number): void {
  const text = `The web chat has its ${maxConnections} connections open; try again later.\n`;
  res.writeHead(503, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'retry-after': '5',
    connection: 'close',
  });
  res.end(text);
}
