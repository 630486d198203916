import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from './free-port.js';

/** A private redis-server on a free loopback port, for tests and `threadlab bench queue`. */
export interface PrivateRedis {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' }, () => socket.write('PING\r\n'));
    socket.setTimeout(500);
    socket.on('data', (d) => {
      socket.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
    socket.on('error', () => resolve(false));
    socket.on('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** Starts redis-server with no persistence on `port` (a free one by default) and waits until it answers. */
export async function startPrivateRedis(port?: number): Promise<PrivateRedis> {
  const p = port ?? (await freePort());
  const child = spawn(
    'redis-server',
    ['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const exited = new Promise<never>((_, reject) =>
    child.once('error', (err) =>
      reject(new Error(`redis-server could not start (${err.message}); install it: apt-get install redis-server`)),
    ),
  );
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const ok = await Promise.race([ping(p), exited]);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  if (!(await ping(p))) throw new Error(`redis-server on port ${p} did not answer within 10 s`);
  return {
    url: `redis://127.0.0.1:${p}`,
    port: p,
    process: child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
