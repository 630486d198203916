import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Logger } from '../logger.js';

/** The health of the process: `ok` is false when any check fails; checks carry short reasons. */
export interface HealthReport {
  ok: boolean;
  checks: Record<string, { ok: boolean; detail?: string }>;
}

export interface OpsServerOptions {
  /** 0 picks a free port (see `port` on the result). THREADLAB_METRICS_PORT. */
  port: number;
  /** @defaultValue '127.0.0.1' */
  host?: string;
  registry: Registry;
  health: () => Promise<HealthReport>;
  /** A health check that takes longer counts as failed. @defaultValue 5000 */
  healthTimeoutMs?: number;
  logger?: Logger;
}

export interface OpsServer {
  port: number;
  url: string;
  close(): Promise<void>;
}

/** Serves GET /healthz (200 or 503 with the JSON report) and GET /metrics (Prometheus text). */
export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer((req, res) => {
    void handle(req, res, options).catch((err: unknown) => {
      options.logger?.error({ err, path: req.url }, 'ops endpoint failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error\n');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, options: OpsServerOptions): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://ops').pathname;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD' }).end();
    return;
  }
  if (path === '/metrics') {
    const body = await options.registry.metrics();
    res.writeHead(200, { 'content-type': options.registry.contentType }).end(req.method === 'HEAD' ? undefined : body);
    return;
  }
  if (path === '/healthz') {
    const report = await checkHealth(options);
    res.writeHead(report.ok ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : JSON.stringify(report));
    return;
  }
  res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /healthz or /metrics\n');
}

async function checkHealth(options: OpsServerOptions): Promise<HealthReport> {
  const timeoutMs = options.healthTimeoutMs ?? 5000;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      options.health(),
      new Promise<never>(
        (_, reject) =>
          (timer = setTimeout(() => reject(new Error(`health check took longer than ${timeoutMs} ms`)), timeoutMs)),
      ),
    ]);
  } catch (err) {
    return { ok: false, checks: { health: { ok: false, detail: err instanceof Error ? err.message : String(err) } } };
  } finally {
    clearTimeout(timer);
  }
}
