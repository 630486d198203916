import { spawn } from 'node:child_process';
import { mkdirSync, openSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ThreadlabError } from '../../domain/errors.js';
import type { DaemonFrame } from './protocol.js';

/** Where the daemon of a data directory listens and logs. */
export function daemonPaths(dataDir: string): { socket: string; log: string } {
  return { socket: join(dataDir, 'cli.sock'), log: join(dataDir, 'daemon.log') };
}

function health(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ socketPath, path: '/health', method: 'GET', timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => {
      req.destroy();
      resolve(false);
    });
    req.end();
  });
}

/**
 * Makes sure the daemon of `dataDir` runs, starting it in the background when it does not.
 * It keeps sandbox sessions between `exec`/`chat` invocations and exits after the idle TTL.
 */
export async function ensureDaemon(dataDir: string, env: Record<string, string | undefined>): Promise<string> {
  const { socket, log } = daemonPaths(dataDir);
  if (await health(socket)) return socket;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  rmSync(socket, { force: true });
  const bin = fileURLToPath(new URL('../../../bin/threadlab.js', import.meta.url));
  const out = openSync(log, 'a');
  const child = spawn(process.execPath, [bin, 'daemon'], {
    detached: true,
    stdio: ['ignore', out, out],
    env: env as NodeJS.ProcessEnv,
  });
  child.unref();
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (await health(socket)) return socket;
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new ThreadlabError('sandbox_start_failed', `The threadlab daemon did not start; see ${log}.`);
}

/** POSTs `body` and yields the daemon's frames as they arrive. */
export async function* callDaemon(
  socketPath: string,
  path: string,
  body: unknown,
  signal?: AbortSignal,
): AsyncGenerator<DaemonFrame> {
  const res = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
    const req = request(
      {
        socketPath,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        ...(signal ? { signal } : {}),
      },
      resolve,
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
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

/** Asks the daemon to stop (removing its containers); true when one was running. */
export async function stopDaemon(dataDir: string): Promise<boolean> {
  const { socket } = daemonPaths(dataDir);
  if (!(await health(socket))) return false;
  await new Promise<void>((resolve) => {
    const req = request({ socketPath: socket, path: '/shutdown', method: 'POST' }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', () => resolve());
    req.end();
  });
  for (let i = 0; i < 100 && (await health(socket)); i++) await new Promise((r) => setTimeout(r, 100));
  return true;
}
