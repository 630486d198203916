import { spawn } from 'node:child_process';
import { closeSync, constants, existsSync, openSync, rmSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { ThreadlabError } from '../../src/domain/errors.js';
import { processAlive } from '../../src/ops/pid-lock.js';
import { ensurePrivateDir } from './private-dir.js';
import { withStartLock } from './start-lock.js';
import { CONFIG_HEADER, type DaemonFrame, type DaemonHealth } from './protocol.js';
import { dataDirLayout } from '../../src/domain/data-dir.js';

/** Where the daemon of a data directory listens and logs. */
export function daemonPaths(dataDir: string): { socket: string; log: string } {
  const layout = dataDirLayout(dataDir);
  return { socket: layout.cliSocket, log: layout.daemonLog };
}

/** Which daemon to use: the data directory and the configuration it must run with. */
export interface DaemonTarget {
  dataDir: string;
  /** Environment a new daemon starts with. */
  env: Record<string, string | undefined>;
  /** {@link configFingerprint} of the caller's parsed configuration. */
  config: string;
  /** Told about a data directory made private and a daemon replaced. */
  notice?: (text: string) => void;
}

/** How many times a call is tried against a replaced daemon before giving up. */
const MAX_ATTEMPTS = 3;

function health(socketPath: string): Promise<DaemonHealth | undefined> {
  return new Promise((resolve) => {
    const req = request({ socketPath, path: '/health', method: 'GET', timeout: 2000, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        if (text.length + d.length <= 4096) text += d; // a health answer is small; ignore anything else
      });
      res.on('end', () => {
        try {
          resolve(res.statusCode === 200 ? (JSON.parse(text) as DaemonHealth) : undefined);
        } catch {
          resolve(undefined);
        }
      });
    });
    req.on('error', () => resolve(undefined));
    req.on('timeout', () => {
      req.destroy();
      resolve(undefined);
    });
    req.end();
  });
}

/** POSTs without a body; resolves with the status, or undefined when the daemon did not answer. */
function post(socketPath: string, path: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = request({ socketPath, path, method: 'POST', agent: false, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(undefined));
    req.on('timeout', () => (req.destroy(), resolve(undefined)));
    req.end();
  });
}

/**
 * Makes sure a daemon with the caller's configuration serves `dataDir`, starting it in the
 * background when there is none. One started with another configuration is asked to drain: it frees
 * the socket at once and exits when its running calls end, while a new one takes over.
 */
export async function ensureDaemon(target: DaemonTarget): Promise<string> {
  const { socket } = daemonPaths(target.dataDir);
  const { previousMode } = ensurePrivateDir(target.dataDir);
  if (previousMode !== undefined)
    target.notice?.(
      `${target.dataDir} was open to other users (mode ${previousMode.toString(8)}); made it private (700).\n`,
    );
  const usable = (h: DaemonHealth | undefined) => h && h.config === target.config && !h.draining;
  if (usable(await health(socket))) return socket;
  return withStartLock({ dataDir: target.dataDir }, async () => {
    // Another command may have started it while this one waited for the lock.
    const running = await health(socket);
    if (usable(running)) return socket;
    if (running) await replace(target, running);
    return start(target);
  });
}

async function replace(target: DaemonTarget, running: DaemonHealth): Promise<void> {
  const { socket } = daemonPaths(target.dataDir);
  target.notice?.(`The configuration changed: replacing the daemon (pid ${running.pid}) once its running calls end.\n`);
  // A daemon from before draining existed knows only /shutdown.
  if ((await post(socket, '/drain')) === 404) await post(socket, '/shutdown');
}

/**
 * bin/threadlab.js, two levels up from this module: the package's in a checkout (cli/daemon), the
 * compiled-only dist/bin/threadlab.js in a build (dist/cli/daemon), so a compiled command starts a
 * compiled daemon; else three levels up, the package's beside dist/.
 */
function threadlabBin(): string {
  const candidates = ['../../bin/threadlab.js', '../../../bin/threadlab.js'].map((up) =>
    fileURLToPath(new URL(up, import.meta.url)),
  );
  return candidates.find((path) => existsSync(path)) ?? candidates[0]!;
}

async function start(target: DaemonTarget): Promise<string> {
  const { socket, log } = daemonPaths(target.dataDir);
  rmSync(socket, { force: true });
  const bin = threadlabBin();
  const out = openSync(log, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  const child = spawn(process.execPath, [bin, 'daemon'], {
    detached: true,
    stdio: ['ignore', out, out],
    env: target.env as NodeJS.ProcessEnv,
  });
  closeSync(out);
  child.unref();
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const started = await health(socket);
    if (started?.config === target.config) return socket;
    if (started)
      throw new ThreadlabError(
        'sandbox_start_failed',
        `The threadlab daemon (pid ${started.pid}) runs with another configuration than this command; see ${log}.`,
      );
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new ThreadlabError('sandbox_start_failed', `The threadlab daemon did not start; see ${log}.`);
}

/** The daemon answered that it cannot take this call (another configuration, or draining). */
class DaemonReplaced extends Error {}

function open(socketPath: string, path: string, body: Buffer | Readable, config: string, signal?: AbortSignal) {
  return new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(
      {
        socketPath,
        path,
        method: 'POST',
        agent: false,
        headers: {
          'content-type': Buffer.isBuffer(body) ? 'application/json' : 'application/octet-stream',
          [CONFIG_HEADER]: config,
        },
        ...(signal ? { signal } : {}),
      },
      resolve,
    );
    req.on('error', reject);
    if (Buffer.isBuffer(body)) req.end(body);
    else body.pipe(req);
  });
}

/**
 * POSTs a call to the daemon with the caller's configuration and yields its frames as they arrive.
 * A daemon with another configuration is replaced and the call tried again (`body` is made anew).
 */
export async function* callDaemon(
  target: DaemonTarget,
  path: '/exec' | '/chat',
  body: () => Buffer | Readable,
  signal?: AbortSignal,
): AsyncGenerator<DaemonFrame> {
  for (let attempt = 1; ; attempt++) {
    const socket = await ensureDaemon(target);
    const res = await open(socket, path, body(), target.config, signal).catch((err: NodeJS.ErrnoException) => {
      // The daemon went away between the health check and the call (idle exit, replaced).
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOENT') return new DaemonReplaced(err.message);
      throw err;
    });
    if (res instanceof DaemonReplaced || res.statusCode === 409 || res.statusCode === 503) {
      if (!(res instanceof DaemonReplaced)) res.resume();
      if (attempt < MAX_ATTEMPTS) continue;
      throw new ThreadlabError(
        'sandbox_start_failed',
        `The threadlab daemon was replaced ${MAX_ATTEMPTS} times during this call (another command with a different configuration?). Try again, or run \`threadlab daemon stop\`.`,
      );
    }
    yield* frames(res);
    return;
  }
}

async function* frames(res: IncomingMessage): AsyncGenerator<DaemonFrame> {
  let buffer = '';
  for await (const chunk of res) {
    buffer += (chunk as Buffer).toString('utf8');
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.trim()) yield JSON.parse(line) as DaemonFrame;
    }
  }
}

/** How long `daemon stop` waits for the daemon's process to end: its sessions' variables are saved first. */
const STOP_WAIT_MS = 60_000;

/**
 * Asks the daemon to stop (saving its sessions' variables, removing its containers); true when one was running.
 * Returns once its process has ended, not when its socket is gone: a daemon started right after would otherwise
 * restore a session before the old one finished saving it.
 */
export async function stopDaemon(dataDir: string): Promise<boolean> {
  const { socket } = daemonPaths(dataDir);
  const running = await health(socket);
  if (!running) return false;
  await post(socket, '/shutdown');
  const deadline = Date.now() + STOP_WAIT_MS;
  while (((await health(socket)) || processAlive(running.pid)) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}
