import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { basename } from 'node:path';
import { toThreadlabError } from '../../domain/errors.js';
import { cliThreadKey, type ThreadRef } from '../../domain/thread-key.js';
import type { Logger } from '../../logger.js';
import type { Sandbox } from '../../ports/sandbox.js';
import type { CliAdapter } from './cli-adapter.js';
import type { ChatRequest, DaemonFrame, ExecRequest } from './protocol.js';
import { writeUnder } from './write-out.js';

export interface DaemonServerOptions {
  socketPath: string;
  sandbox: Sandbox;
  adapter: CliAdapter;
  logger: Logger;
  /** Called on POST /shutdown and when idle for `idleMs`. */
  onShutdown: () => void;
  /** Exit after this long without a request. */
  idleMs: number;
}

async function readJson<T>(req: IncomingMessage): Promise<T> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as T;
}

/**
 * The local daemon behind `threadlab exec` and `threadlab chat`: it holds the sandbox sessions and
 * conversation memory between command invocations, on a unix socket only the user can reach.
 */
export class DaemonServer {
  private readonly server: Server;
  private inFlight = 0;
  private lastActivityMs = Date.now();
  private readonly idleTimer: NodeJS.Timeout;

  constructor(private readonly options: DaemonServerOptions) {
    this.server = createServer((req, res) => void this.route(req, res));
    this.idleTimer = setInterval(
      () => {
        if (this.inFlight === 0 && Date.now() - this.lastActivityMs > options.idleMs) {
          options.logger.info('idle: shutting down');
          options.onShutdown();
        }
      },
      Math.min(options.idleMs, 30_000),
    );
    this.idleTimer.unref();
  }

  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.socketPath, () => resolve());
    });
  }

  close(): Promise<void> {
    clearInterval(this.idleTimer);
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.lastActivityMs = Date.now();
    if (req.method === 'GET' && req.url === '/health') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ pid: process.pid }));
      return;
    }
    if (req.method === 'POST' && req.url === '/shutdown') {
      res.writeHead(202).end();
      this.options.onShutdown();
      return;
    }
    if (req.method !== 'POST' || (req.url !== '/exec' && req.url !== '/chat')) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const send = (frame: DaemonFrame) => res.write(`${JSON.stringify(frame)}\n`);
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    this.inFlight += 1;
    try {
      if (req.url === '/exec') await this.exec(await readJson<ExecRequest>(req), send, abort.signal);
      else await this.chat(await readJson<ChatRequest>(req), send, abort.signal);
    } catch (err) {
      const e = toThreadlabError(err);
      this.options.logger.error({ err: e }, 'daemon request failed');
      send({ type: 'failure', code: e.code, message: e.message });
    } finally {
      this.inFlight -= 1;
      this.lastActivityMs = Date.now();
      res.end();
    }
  }

  private async exec(request: ExecRequest, send: (f: DaemonFrame) => void, signal: AbortSignal): Promise<void> {
    const { sandbox } = this.options;
    const key = cliThreadKey(request.session ?? `once-${randomUUID()}`);
    try {
      const result = await sandbox.run(key, {
        language: request.language,
        code: request.code,
        signal,
        ...(request.timeoutMs ? { timeoutMs: request.timeoutMs } : {}),
        onStdout: (text) => send({ type: 'stdout', text }),
        onStderr: (text) => send({ type: 'stderr', text }),
      });
      const written: string[] = [];
      if (request.outDir) {
        for (const artifact of result.artifacts) {
          written.push(await writeUnder(request.outDir, artifact.path, await sandbox.readFile(key, artifact.path)));
        }
        let n = 0;
        for (const display of result.displays) {
          const png = display.data['image/png'];
          if (png)
            written.push(
              await writeUnder(
                request.outDir,
                `display-${result.executionCount}-${++n}.png`,
                Buffer.from(png, 'base64'),
              ),
            );
        }
      }
      send({ type: 'exec_result', result, written });
    } finally {
      if (!request.session) await sandbox.reset(key).catch(() => {});
    }
  }

  private async chat(request: ChatRequest, send: (f: DaemonFrame) => void, signal: AbortSignal): Promise<void> {
    const { adapter } = this.options;
    const thread: ThreadRef = { platform: 'cli', workspace: 'local', channel: 'cli', thread: request.thread };
    const id = randomUUID();
    const onAbort = () => void adapter.cancel(cliThreadKey(request.thread));
    signal.addEventListener('abort', onAbort, { once: true });
    const reply = await adapter.send(
      {
        id,
        thread,
        user: { id: process.env.USER ?? 'cli' },
        text: request.text,
        attachments: request.attachments.map((path, i) => ({ id: `${id}-${i}`, name: basename(path), url: path })),
        receivedAtMs: Date.now(),
      },
      (event) => send({ type: 'progress', event }),
    );
    signal.removeEventListener('abort', onAbort);
    const images: string[] = [];
    const files: string[] = [];
    if (request.outDir) {
      for (const image of reply.images) images.push(await writeUnder(request.outDir, image.name, image.data));
      for (const file of reply.files) files.push(await writeUnder(request.outDir, file.name, file.data));
    }
    send({
      type: 'chat_reply',
      reply: {
        kind: reply.kind,
        text: reply.text,
        runs: reply.runs.map(({ language, code, status, durationMs }) => ({ language, code, status, durationMs })),
        images,
        files,
        omitted: (reply.omitted ?? []).map(({ name, bytes, reason }) => ({ name, bytes, reason })),
        ...(reply.footer ? { footer: reply.footer } : {}),
      },
    });
  }
}
