import { mkdtempSync, rmSync } from 'node:fs';
import { lstat, readFile, readdir } from 'node:fs/promises';
import { Agent, request, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../support/redis-server.js';
import { removeContainersOf } from '../roles/containers.js';
import { spawnThreadlab, stopProcess, type ThreadlabProcess } from '../roles/processes.js';

/** The web token of the abuse bot: with one set, every request goes through authentication, cookies included. */
export const TOKEN = 'abuse-suite-token-0123456789';
export const AUTH = { authorization: `Bearer ${TOKEN}` };

/**
 * `threadlab start` as shipped, web chat only (no model: fenced code blocks run in direct mode), with a
 * temporary data directory and a one-container warm pool; measured from outside through /proc.
 */
export class AbuseBot {
  readonly dataDir = mkdtempSync(join(tmpdir(), 'threadlab-abuse-'));
  process!: ThreadlabProcess;
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(extraEnv: Record<string, string> = {}): Promise<void> {
    const image = process.env.THREADLAB_TEST_SANDBOX_IMAGE;
    if (!image) throw new Error('THREADLAB_TEST_SANDBOX_IMAGE is not set: run through the e2e project (global setup)');
    this.port = await freePort();
    this.process = spawnThreadlab({
      name: 'abuse',
      role: 'all',
      metricsPort: await freePort(),
      env: {
        THREADLAB_SANDBOX_IMAGE: image,
        THREADLAB_DATA_DIR: this.dataDir,
        THREADLAB_SANDBOX_POOL_SIZE: '1',
        // A fixed pool of one: tests tell a thread's container from the pool's by counting them.
        THREADLAB_SANDBOX_POOL_MAX: '1',
        THREADLAB_SANDBOX_MEMORY_MB: '512',
        THREADLAB_WEB_ENABLED: 'true',
        THREADLAB_WEB_HOST: '127.0.0.1',
        THREADLAB_WEB_PORT: String(this.port),
        THREADLAB_WEB_TOKEN: TOKEN,
        THREADLAB_LOG_LEVEL: 'info',
        THREADLAB_SHUTDOWN_TIMEOUT_MS: '5000',
        ...extraEnv,
      },
    });
    await this.process.ready(120_000);
  }

  /** VmRSS and VmHWM (its peak so far) of the bot, in bytes. */
  async memory(): Promise<{ rssBytes: number; peakBytes: number }> {
    const status = await readFile(`/proc/${this.process.pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    return { rssBytes: kb('VmRSS'), peakBytes: kb('VmHWM') };
  }

  /** Samples VmRSS every few ms while `work` runs; resolves with its result and the highest sample. */
  async sampleRss<T>(work: () => Promise<T>): Promise<{ result: T; maxRssBytes: number }> {
    let maxRssBytes = (await this.memory()).rssBytes;
    let running = true;
    const sampler = (async () => {
      while (running) {
        maxRssBytes = Math.max(maxRssBytes, (await this.memory()).rssBytes);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    try {
      return { result: await work(), maxRssBytes };
    } finally {
      running = false;
      await sampler;
    }
  }

  /** Bytes allocated on disk under the data directory (blocks, so sparse files count as what they use). */
  async dataDirBytes(dir = this.dataDir): Promise<number> {
    let total = 0;
    for (const entry of await readdir(dir).catch(() => [] as string[])) {
      const path = join(dir, entry);
      const info = await lstat(path).catch(() => undefined);
      if (!info) continue;
      total += info.isDirectory() ? await this.dataDirBytes(path) : info.blocks * 512;
    }
    return total;
  }

  /** The bot is running and `/api/health` answers 200 within 1 s; resolves with the latency in ms. */
  async health(): Promise<number> {
    if (!this.process.isRunning()) throw new Error(`the bot exited:\n${this.process.output().slice(-4000)}`);
    const started = performance.now();
    const res = await fetch(`${this.url}/api/health`, { headers: AUTH, signal: AbortSignal.timeout(1000) });
    if (res.status !== 200) throw new Error(`/api/health answered ${res.status}`);
    await res.arrayBuffer();
    return performance.now() - started;
  }

  /** Sends `text` as-is on a new connection; resolves with the answer's status (0 when closed without one). */
  raw(text: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const socket = connect(this.port, '127.0.0.1', () => socket.write(text));
      let answer = '';
      socket.on('data', (d: Buffer) => {
        answer += d.toString('latin1');
        if (/^HTTP\/1\.1 \d{3}/.test(answer)) socket.destroy();
      });
      socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
      socket.on('error', reject);
      socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
    });
  }

  /** Log lines of the bot at error level (pino 50) or above. */
  errorLines(): string[] {
    return this.process
      .output()
      .split('\n')
      .filter((line) => /"level":(50|60)/.test(line));
  }

  // Answers are checked field by field in the tests; a loose type keeps those checks short.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async json(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }> {
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: { ...AUTH, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }

  async cleanup(): Promise<void> {
    if (this.process) {
      await stopProcess(this.process, 'SIGKILL').catch(() => undefined);
      await removeContainersOf([this.process.pid]).catch(() => undefined);
    }
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/**
 * Streams a request body from `chunks` without holding it, resolving with the answer's status and
 * body as soon as the server answers, even when it refuses before reading everything.
 */
export function streamRequest(
  url: string,
  options: { method: string; headers: Record<string, string>; chunks: () => AsyncIterable<Buffer> },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    // Keep-alive, as browsers send: with `Connection: close` the server closes once it answered, and
    // bytes still arriving then reset the connection under an answer the client may not have read yet.
    const agent = new Agent({ keepAlive: true });
    const req = request(url, { method: options.method, headers: { ...AUTH, ...options.headers }, agent });
    const done = () => setImmediate(() => agent.destroy());
    req.on('response', (res: IncomingMessage) => {
      answered = true;
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => {
        done();
        resolve({ status: res.statusCode ?? 0, body });
      });
      res.on('error', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    void (async () => {
      try {
        for await (const chunk of options.chunks()) {
          if (answered || req.destroyed) break;
          if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
        }
        req.end();
      } catch {
        // the server closed the connection after answering; its answer is what counts
      }
    })();
  });
}

/** A multipart body with a boundary, as chunks: each part's bytes come from its own generator. */
export function multipartChunks(
  boundary: string,
  parts: { name: string; filename?: string; type?: string; bytes: () => Iterable<Buffer> }[],
): () => AsyncIterable<Buffer> {
  return async function* () {
    for (const p of parts) {
      const file = p.filename !== undefined ? `; filename="${p.filename}"` : '';
      const type = p.type ? `\r\nContent-Type: ${p.type}` : '';
      yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${file}${type}\r\n\r\n`);
      yield* p.bytes();
      yield Buffer.from('\r\n');
    }
    yield Buffer.from(`--${boundary}--\r\n`);
  };
}

/** `total` bytes of `fill` in 64 KiB pieces, never all at once. */
export function* repeated(total: number, fill = 0x61): Iterable<Buffer> {
  const piece = Buffer.alloc(64 * 1024, fill);
  for (let sent = 0; sent < total; sent += piece.length) yield piece.subarray(0, Math.min(piece.length, total - sent));
}
