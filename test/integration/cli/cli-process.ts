import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { sandboxRuntimeEnv } from '../../support/sandbox-runtime.js';
import { threadlabBin, type ThreadlabEntry } from '../../support/threadlab-bin.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  env: Record<string, string | undefined>;
  stdin?: string;
  cwd?: string;
  /** Run under this umask (through /bin/sh), as a user's shell would. */
  umask?: string;
  /** Run as another local user. */
  uid?: number;
  gid?: number;
  /** The compiled CLI (default) or bin/threadlab.js running the TypeScript, as in a checkout. */
  entry?: ThreadlabEntry;
}

/** The environment of a CLI run against `dataDir` with the test's sandbox image. */
export function cliEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    THREADLAB_DATA_DIR: dataDir,
    THREADLAB_SANDBOX_IMAGE: process.env.THREADLAB_TEST_SANDBOX_IMAGE,
    THREADLAB_SANDBOX_POOL_SIZE: '1',
    THREADLAB_LOG_LEVEL: 'warn',
    ...sandboxRuntimeEnv(),
    ...extra,
  };
}

/** Spawns `node <threadlab entry> ARGS` and collects its output. */
export function runCli(args: string[], options: CliRunOptions): Promise<CliRun> {
  const bin = threadlabBin(options.entry);
  const [command, argv] = options.umask
    ? ['/bin/sh', ['-c', `umask ${options.umask} && exec "$0" "$@"`, process.execPath, bin, ...args]]
    : [process.execPath, [bin, ...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, {
      env: options.env as NodeJS.ProcessEnv,
      cwd: options.cwd ?? '/',
      ...(options.uid !== undefined ? { uid: options.uid, gid: options.gid ?? options.uid } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.on('error', () => {}); // a command that refuses its input stops reading it
    child.stdin.end(options.stdin ?? '');
  });
}

/** GET /health of the daemon of `dataDir`, or undefined when none answers. */
export function daemonHealth(dataDir: string): Promise<{ pid: number; config: string; draining: boolean } | undefined> {
  return new Promise((resolve) => {
    const req = request({ socketPath: join(dataDir, 'cli.sock'), path: '/health', agent: false }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
