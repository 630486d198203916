import { randomUUID } from 'node:crypto';
import { chmodSync, lstatSync, rmSync, unlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { AnswerFigures } from '../../src/domain/figures.js';
import { ThreadlabError, toThreadlabError } from '../../src/domain/errors.js';
import { cliThreadKey, type ThreadRef } from '../../src/domain/thread-key.js';
import type { Logger } from '../../src/logger.js';
import type { Sandbox } from '../../src/ports/sandbox.js';
import { readChatBody } from './chat-body.js';
import type { CliAdapter } from './cli-adapter.js';
import {
  CONFIG_HEADER,
  DAEMON_LIMITS,
  execRequestSchema,
  type ChatReplySummary,
  type DaemonFrame,
  type DaemonHealth,
  type ExecRequest,
} from './protocol.js';
import { OutWriter } from './write-out.js';
import { replyTextWithTables } from '../../src/replies/table-text.js';

export interface DaemonServerOptions {
  socketPath: string;
  sandbox: Sandbox;
  adapter: CliAdapter;
  logger: Logger;
  /** Fingerprint of the configuration this daemon runs with; calls carrying another are refused (409). */
  configFingerprint: string;
  /** Private directory where attachments are staged while their message runs. */
  stagingDir: string;
  /** Largest attachment accepted. */
  maxFileBytes: number;
  /** Called on POST /shutdown, when idle for `idleMs`, and when drained. */
  onShutdown: () => void;
  /** Exit after this long without a request. */
  idleMs: number;
}

type Send = (frame: DaemonFrame) => void;

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of req) {
    bytes += (chunk as Buffer).length;
    if (bytes > DAEMON_LIMITS.maxJsonBytes)
      throw new ThreadlabError(
        'sandbox_file_rejected',
        `The code is over the limit of ${DAEMON_LIMITS.maxJsonBytes} bytes.`,
        {
          isPolicy: true,
        },
      );
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ThreadlabError('internal', 'The request body is not JSON.');
  }
}

/**
 * The local daemon behind `threadlab exec` and `threadlab chat`: it holds the sandbox sessions and
 * conversation memory between command invocations, on a unix socket only its user can reach (0600).
 */
export class DaemonServer {
  private readonly server: Server;
  private inFlight = 0;
  private draining = false;
  private socketInode: number | undefined;
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

  /** Listens on the socket, created 0600 whatever the umask (and checked). */
  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      const path = this.options.socketPath;
      const previous = process.umask(0o177);
      const restore = () => process.umask(previous);
      this.server.once('error', (err) => (restore(), reject(err)));
      this.server.listen(path, () => {
        restore();
        try {
          chmodSync(path, 0o600);
          const info = lstatSync(path);
          if (!info.isSocket() || (info.mode & 0o077) !== 0) throw new Error(`${path} is not a private socket`);
          this.socketInode = info.ino;
          resolve();
        } catch (err) {
          reject(err);
        }
      });
    });
  }

  close(): Promise<void> {
    clearInterval(this.idleTimer);
    this.removeSocket();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Unlinks the socket path if it is still ours (a successor may have bound the path meanwhile). */
  private removeSocket(): void {
    try {
      if (lstatSync(this.options.socketPath).ino === this.socketInode) unlinkSync(this.options.socketPath);
    } catch {
      // already gone
    }
    this.socketInode = undefined;
  }

  /** Takes no new calls, frees the socket path for a successor, and shuts down once running calls end. */
  private drain(): void {
    if (!this.draining) this.options.logger.info({ inFlight: this.inFlight }, 'draining: configuration changed');
    this.draining = true;
    this.removeSocket();
    this.server.close();
    this.server.closeIdleConnections();
    if (this.inFlight === 0) this.options.onShutdown();
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.lastActivityMs = Date.now();
    if (req.method === 'GET' && req.url === '/health') {
      const health: DaemonHealth = {
        pid: process.pid,
        config: this.options.configFingerprint,
        draining: this.draining,
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(health));
      return;
    }
    if (req.method === 'POST' && req.url === '/shutdown') {
      res.writeHead(202).end();
      this.options.onShutdown();
      return;
    }
    if (req.method === 'POST' && req.url === '/drain') {
      this.drain();
      res.writeHead(202, { connection: 'close' }).end();
      return;
    }
    if (req.method !== 'POST' || (req.url !== '/exec' && req.url !== '/chat')) {
      res.writeHead(404).end();
      return;
    }
    if (this.draining) {
      res.writeHead(503, { connection: 'close' }).end('draining');
      return;
    }
    if (req.headers[CONFIG_HEADER] !== this.options.configFingerprint) {
      res.writeHead(409, { connection: 'close' }).end('configuration changed');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const send: Send = (frame) => res.write(`${JSON.stringify(frame)}\n`);
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    this.inFlight += 1;
    try {
      if (req.url === '/exec') await this.exec(parseExec(await readJson(req)), send, abort.signal);
      else await this.chat(req, send, abort.signal);
    } catch (err) {
      const e = toThreadlabError(err);
      if (e.isPolicy) this.options.logger.info({ code: e.code }, e.message);
      else this.options.logger.error({ err: e }, 'daemon request failed');
      send({ type: 'failure', code: e.code, message: e.message });
    } finally {
      this.inFlight -= 1;
      this.lastActivityMs = Date.now();
      res.end();
      if (this.draining && this.inFlight === 0) this.options.onShutdown();
    }
  }

  private async exec(request: ExecRequest, send: Send, signal: AbortSignal): Promise<void> {
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
      if (!request.outDir) return send({ type: 'exec_result', result });
      const writer = new OutWriter({ outDir: request.outDir, overwrite: request.overwrite ?? false });
      for (const artifact of result.artifacts) {
        await writer.write(artifact.path, await sandbox.readFile(key, artifact.path));
      }
      let n = 0;
      for (const display of result.displays) {
        const png = display.data['image/png'];
        if (png) await writer.write(`display-${result.executionCount}-${++n}.png`, Buffer.from(png, 'base64'));
      }
      send({ type: 'exec_result', result, out: writer.result() });
    } finally {
      if (!request.session) await sandbox.reset(key).catch(() => {});
    }
  }

  private async chat(req: IncomingMessage, send: Send, signal: AbortSignal): Promise<void> {
    const { adapter } = this.options;
    const stagingDir = join(this.options.stagingDir, randomUUID());
    try {
      const { header, files } = await readChatBody(req, { stagingDir, maxFileBytes: this.options.maxFileBytes });
      const thread: ThreadRef = { platform: 'cli', workspace: 'local', channel: 'cli', thread: header.thread };
      const id = randomUUID();
      const user = { id: process.env.USER ?? 'cli' };
      const onAbort = () => void adapter.cancel(cliThreadKey(header.thread), user);
      signal.addEventListener('abort', onAbort, { once: true });
      const reply = await adapter.send(
        {
          id,
          thread,
          user,
          text: header.text,
          attachments: header.attachments.map((a, i) => ({ id: `${id}-${i}`, name: a.name, url: files[i]! })),
          receivedAtMs: Date.now(),
        },
        (event) => send({ type: 'progress', event }),
      );
      signal.removeEventListener('abort', onAbort);
      const images: string[] = [];
      const written: string[] = [];
      const writer = header.outDir
        ? new OutWriter({ outDir: header.outDir, overwrite: header.overwrite ?? false })
        : undefined;
      if (writer) {
        for (const image of reply.images) {
          const path = await writer.write(image.name, image.data);
          if (path) images.push(path);
        }
        for (const file of reply.files) {
          const path = await writer.write(file.name, file.data);
          if (path) written.push(path);
        }
      }
      send({
        type: 'chat_reply',
        reply: {
          kind: reply.kind,
          text: replyTextWithTables(reply),
          runs: reply.runs.map(({ language, code, status, durationMs }) => ({ language, code, status, durationMs })),
          images,
          files: written,
          refused: writer?.result().refused ?? [],
          omitted: (reply.omitted ?? []).map(({ name, bytes, reason }) => ({ name, bytes, reason })),
          ...(reply.footer ? { footer: reply.footer } : {}),
          ...(reply.figures?.line ? { figures: figuresSummary(reply.figures) } : {}),
        },
      });
    } finally {
      rmSync(stagingDir, { recursive: true, force: true });
    }
  }
}

function parseExec(json: unknown): ExecRequest {
  const parsed = execRequestSchema.safeParse(json);
  if (!parsed.success)
    throw new ThreadlabError('internal', `Malformed exec request: ${parsed.error.issues[0]?.message ?? 'invalid'}.`);
  return parsed.data;
}

/** The check of the answer's figures as `threadlab chat` prints it (the marks are the web chat's). */
function figuresSummary(figures: AnswerFigures): NonNullable<ChatReplySummary['figures']> {
  const { checked, notFound, notFoundTexts, line } = figures;
  return { checked, notFound, notFoundTexts, line };
}
