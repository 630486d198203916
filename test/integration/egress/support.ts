import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '../../../src/logger.js';
import type { EgressAuditRecord } from '../../../src/egress/egress-record.js';
import { EgressGateway, type EgressBudget, type EgressGatewayOptions } from '../../../src/egress/gateway.js';
import { parseAllowlist } from '../../../src/egress/policy.js';
import { createMetrics, type ThreadlabMetrics } from '../../../src/ops/metrics.js';

/** Every server a test opened, closed by `closeAll` in afterEach/afterAll. */
const opened: Array<{ close: () => void }> = [];

export function closeAll(): void {
  for (const server of opened.splice(0)) server.close();
}

function listen<T extends Server | HttpServer>(server: T): Promise<T & { port: number }> {
  opened.push({
    close: () => {
      server.close();
      (server as HttpServer).closeAllConnections?.();
    },
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(Object.assign(server, { port: (server.address() as AddressInfo).port })),
    ),
  );
}

/** A gateway on a loopback port: each accepted socket is one `handle` call, as the sandbox relay makes them. */
export interface GatewayUnderTest {
  gateway: EgressGateway;
  port: number;
  budget: EgressBudget;
  audits: EgressAuditRecord[];
  logText: () => string;
  metrics: ThreadlabMetrics;
  /** Resolves once every `handle` call so far has returned. */
  settled: () => Promise<void>;
}

export async function startGateway(
  allow: string,
  options: Partial<EgressGatewayOptions> & { budgetMs?: number } = {},
): Promise<GatewayUnderTest> {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'info',
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    }),
  });
  const metrics = createMetrics({ defaultMetrics: false });
  const gateway = new EgressGateway({
    allow: parseAllowlist(allow),
    maxConnections: 100,
    maxBytes: 64 * 1024 * 1024,
    logger,
    metrics: metrics.egress,
    ...options,
  });
  const budget = gateway.newBudget(options.budgetMs ?? 60_000);
  const handled: Array<Promise<void>> = [];
  const server = await listen(
    createServer({ allowHalfOpen: true }, (socket) => {
      handled.push(gateway.handle(socket, { thread: 'thread-hash', user: 'U1' }, budget));
    }),
  );
  opened.push({ close: () => budget.close() });
  return {
    gateway,
    port: server.port,
    budget,
    metrics,
    logText: () => lines.join(''),
    get audits() {
      return lines.map((line) => JSON.parse(line) as EgressAuditRecord).filter((line) => line.audit === 'egress');
    },
    settled: async () => {
      await Promise.all(handled);
    },
  };
}

/** Sends `text` raw and reads until the gateway closes: the whole answer, and how long it took. */
export function rawExchange(port: number, text: string | Buffer): Promise<{ response: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () =>
      resolve({ response: Buffer.concat(chunks).toString('latin1'), ms: performance.now() - started }),
    );
    socket.write(text);
  });
}

/** Opens a CONNECT tunnel; resolves with the socket once the gateway said 200, or rejects with its status line. */
export function openTunnel(port: number, target: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      const status = head.subarray(0, head.indexOf('\r\n')).toString();
      if (!status.startsWith('HTTP/1.1 200 ')) {
        socket.destroy();
        reject(new Error(status));
        return;
      }
      if (head.length > end + 4) socket.unshift(head.subarray(end + 4));
      resolve(socket);
    };
    socket.on('data', onData);
    socket.on('error', reject);
    socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
  });
}

/** A TCP server that echoes every byte back. */
export function echoServer(): Promise<Server & { port: number }> {
  return listen(
    createServer((socket) => {
      socket.on('error', () => undefined);
      socket.pipe(socket);
    }),
  );
}

/** One request as an upstream received it. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An HTTP upstream that records each request and answers `upstream saw <body>`. */
export async function recordingServer(tls?: {
  key: Buffer;
  cert: Buffer;
}): Promise<{ port: number; seen: SeenRequest[] }> {
  const seen: SeenRequest[] = [];
  const onRequest = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.end(`upstream saw ${body}`);
    });
  };
  const server = tls ? createHttpsServer(tls, onRequest) : createHttpServer(onRequest);
  const { port } = await listen(server);
  return { port, seen };
}

/** A self-signed certificate for IP 127.0.0.1, made by the machine's openssl. */
export function selfSignedCertificate(): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'egress-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  } catch (err) {
    throw new Error('these tests make a self-signed certificate with openssl; install it (apt-get install openssl)', {
      cause: err,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A counter's value in the Prometheus text of `metrics`. */
export async function metricValue(metrics: ThreadlabMetrics, name: string, label: string): Promise<number> {
  const text = await metrics.registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(label));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** Resolves when `socket` has closed, whether by FIN or reset (a cut connection resets). */
export function closed(socket: Socket): Promise<void> {
  socket.on('error', () => undefined);
  return socket.destroyed && socket.closed
    ? Promise.resolve()
    : new Promise((resolve) => socket.once('close', () => resolve()));
}
