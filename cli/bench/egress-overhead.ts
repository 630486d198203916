import { once } from 'node:events';
import { createServer as createHttpServer, request } from 'node:http';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { createLogger } from '../../src/logger.js';
import { EgressGateway } from '../../src/egress/gateway.js';
import { parseAllowlist } from '../../src/egress/policy.js';

/** Medians of one kind of request, direct and through the gateway, in milliseconds. */
export interface OverheadRow {
  /** `absolute-form GET` or `CONNECT + GET`. */
  kind: string;
  directMs: number;
  gatewayMs: number;
  overheadMs: number;
}

export interface EgressOverheadOptions {
  /** Requests per kind and path (each on a new connection, as the gateway serves one request per connection). @defaultValue 200 */
  requests?: number;
}

/** What the bench's loopback server answers: a small body, checked on every request. */
export const BODY = 'ok';

/** The median of samples (the middle pair's mean for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Listens on a free loopback port and returns it. */
export async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/** One GET on a new connection; `path` is absolute form when going through the gateway. */
export function timedGet(port: number, path: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, headers: { Connection: 'close' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () =>
        body === BODY ? resolve(performance.now() - started) : reject(new Error(`unexpected answer: ${body}`)),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** A raw GET on a new connection, through a CONNECT tunnel first when `tunnelTo` is given. */
function timedRawGet(port: number, tunnelTo?: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let tunnelled = tunnelTo === undefined;
    const get = () => socket.write('GET / HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n');
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (!tunnelled && text.includes('\r\n\r\n')) {
        if (!text.startsWith('HTTP/1.1 200 ')) return reject(new Error(text.split('\r\n')[0]));
        tunnelled = true;
        text = '';
        get();
      }
    });
    socket.on('error', reject);
    socket.on('close', () =>
      text.endsWith(`\r\n\r\n${BODY}`)
        ? resolve(performance.now() - started)
        : reject(new Error(`unexpected answer: ${text}`)),
    );
    if (tunnelTo === undefined) get();
    else socket.write(`CONNECT ${tunnelTo} HTTP/1.1\r\nHost: ${tunnelTo}\r\n\r\n`);
  });
}

/**
 * The cost of the egress gateway on loopback: the same small request direct and through a gateway
 * (absolute form, and a CONNECT tunnel), each on a new connection, alternating, median of `requests`.
 * The sandbox relay (stdio between container and bot) comes on top: egress-sandbox-path.ts measures that.
 */
export async function benchEgressOverhead(options: EgressOverheadOptions = {}): Promise<OverheadRow[]> {
  const requests = options.requests ?? 200;
  const upstream = createHttpServer((_req, res) => res.end(BODY));
  const upstreamPort = await listen(upstream);
  const gateway = new EgressGateway({
    allow: parseAllowlist(`127.0.0.1:${upstreamPort}`),
    maxConnections: 4 * requests + 10,
    maxBytes: 1024 * 1024 * 1024,
    logger: createLogger({ level: 'silent' }),
  });
  const budget = gateway.newBudget(10 * 60_000);
  const proxy = createServer({ allowHalfOpen: true }, (socket) => {
    void gateway.handle(socket, { thread: 'bench' }, budget);
  });
  const proxyPort = await listen(proxy);
  const target = `127.0.0.1:${upstreamPort}`;
  const kinds = [
    {
      kind: 'absolute-form GET',
      direct: () => timedGet(upstreamPort, '/'),
      through: () => timedGet(proxyPort, `http://${target}/`),
    },
    {
      kind: 'CONNECT + GET',
      direct: () => timedRawGet(upstreamPort),
      through: () => timedRawGet(proxyPort, target),
    },
  ];
  try {
    const rows: OverheadRow[] = [];
    for (const { kind, direct, through } of kinds) {
      const d: number[] = [];
      const g: number[] = [];
      await direct();
      await through();
      for (let i = 0; i < requests; i++) {
        d.push(await direct());
        g.push(await through());
      }
      const directMs = median(d);
      const gatewayMs = median(g);
      rows.push({ kind, directMs, gatewayMs, overheadMs: gatewayMs - directMs });
    }
    return rows;
  } finally {
    budget.close();
    proxy.close();
    upstream.close();
    upstream.closeAllConnections();
  }
}
