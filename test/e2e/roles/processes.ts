import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sandboxRuntimeEnv } from '../../support/sandbox-runtime.js';
import { threadlabBin, type ThreadlabEntry } from '../../support/threadlab-bin.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** One real `threadlab start --role …` process (`all`: the single-process product). */
export interface ThreadlabProcess {
  name: string;
  role: 'all' | 'gateway' | 'worker';
  child: ChildProcess;
  pid: number;
  /** http://127.0.0.1:<THREADLAB_METRICS_PORT> */
  opsUrl: string;
  /** Everything it wrote to stdout and stderr so far (for failure messages). */
  output(): string;
  /** Resolves with the exit code (or the signal name) once the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; atMs: number }>;
  isRunning(): boolean;
  /** Resolves once it printed "Threadlab is running"; fails if it exits or takes longer. */
  ready(timeoutMs?: number): Promise<void>;
}

/** Environment passed through from the test runner; everything else is given explicitly. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'DOCKER_HOST', 'NODE_OPTIONS']) {
    const value = process.env[name];
    if (value) env[name] = value;
  }
  return env;
}

/**
 * Spawns `node <threadlab entry> start --role <role>` (the compiled CLI unless `entry` says `source`).
 * Returns at once, so the caller can record the process for cleanup before waiting for
 * {@link ThreadlabProcess.ready}.
 */
export function spawnThreadlab(options: {
  name: string;
  role: 'all' | 'gateway' | 'worker';
  env: Record<string, string>;
  metricsPort: number;
  /** A command that runs node in its place (`exec`, same pid), e.g. `['prlimit', '--nofile=1024:1024']`. */
  prefix?: string[];
  entry?: ThreadlabEntry;
}): ThreadlabProcess {
  const start = [process.execPath, threadlabBin(options.entry), 'start', '--role', options.role];
  const [command, ...args] = [...(options.prefix ?? []), ...start];
  const child = spawn(command!, args, {
    cwd: root,
    env: { ...baseEnv(), ...sandboxRuntimeEnv(), ...options.env, THREADLAB_METRICS_PORT: String(options.metricsPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const append = (chunk: Buffer): void => {
    out += chunk.toString();
    if (process.env.THREADLAB_TEST_LOG) process.stderr.write(`[${options.name}] ${chunk.toString()}`);
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; atMs: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, atMs: Date.now() })),
  );
  const isRunning = (): boolean => child.exitCode === null && child.signalCode === null;
  return {
    name: options.name,
    role: options.role,
    child,
    pid: child.pid!,
    opsUrl: `http://127.0.0.1:${options.metricsPort}`,
    output: () => out,
    exited,
    isRunning,
    async ready(timeoutMs = 60_000) {
      // Printed after the sandbox started (orphans swept, pool filling) and jobs or connections are taken.
      const deadline = Date.now() + timeoutMs;
      while (!out.includes('Threadlab is running')) {
        if (!isRunning()) throw new Error(`${options.name} exited before it was ready:\n${out}`);
        if (Date.now() > deadline) throw new Error(`${options.name} was not ready within ${timeoutMs} ms:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

/**
 * What a worker logs (at warn, the roles processes' level) when THREADLAB_SHUTDOWN_TIMEOUT_MS ran out with runs
 * still going, just before it interrupts them and hands them back (adapters/redis/bullmq-queue.ts `close`).
 */
export const SHUTDOWN_DEADLINE_CAME = 'aborting runs at the shutdown deadline';

/** Sends `signal` (if still running) and waits for the exit. */
export async function stopProcess(p: ThreadlabProcess, signal: NodeJS.Signals): Promise<void> {
  if (p.isRunning()) p.child.kill(signal);
  await p.exited;
}

/** One value of a Prometheus text exposition, summed over series matching `labels` (or undefined). */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  let found: number | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const matches = Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`));
    if (!matches) continue;
    found = (found ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return found;
}

export async function fetchMetrics(p: ThreadlabProcess): Promise<string> {
  const res = await fetch(`${p.opsUrl}/metrics`);
  if (res.status !== 200) throw new Error(`${p.name} /metrics answered ${res.status}`);
  return res.text();
}

/** Polls until `predicate` resolves truthy; fails after `timeoutMs` naming `what`. */
export async function waitUntil<T>(
  predicate: () => T | undefined | false | Promise<T | undefined | false>,
  options: { timeoutMs: number; what: string; intervalMs?: number },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${options.what}`);
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 50));
  }
}

/**
 * The jobs `p` counted as finished (`threadlab_job_duration_seconds_count`, with `labels`), read once at least
 * `atLeast` are: a job is counted a moment after its answer was posted, so a test that saw the answer waits for the
 * count, then asserts it (a count past `atLeast` still shows).
 */
export async function jobsFinished(
  p: ThreadlabProcess,
  atLeast: number,
  labels: Record<string, string> = { outcome: 'ok' },
): Promise<number> {
  const count = async () => metricValue(await fetchMetrics(p), 'threadlab_job_duration_seconds_count', labels) ?? 0;
  await waitUntil(async () => (await count()) >= atLeast, {
    timeoutMs: 15_000,
    what: `${p.name} to count ${atLeast} finished jobs`,
  }).catch(() => undefined); // the assertion on the count says what was missing
  return count();
}

/**
 * First attempts each worker has started so far (its queue-wait observations); -1 for one that is gone.
 * Comparing two snapshots tells which worker took a run.
 */
export async function startedRuns(workers: ThreadlabProcess[]): Promise<number[]> {
  return Promise.all(
    workers.map(async (w) =>
      w.isRunning() ? (metricValue(await fetchMetrics(w), 'threadlab_queue_wait_seconds_count') ?? 0) : -1,
    ),
  );
}

/** The one worker whose count grew between two {@link startedRuns} snapshots. */
export function whichStarted(workers: ThreadlabProcess[], before: number[], after: number[]): ThreadlabProcess {
  const grown = workers.filter((_, i) => after[i]! > before[i]!);
  if (grown.length !== 1) throw new Error(`expected one worker to start the run, got ${grown.length}`);
  return grown[0]!;
}
