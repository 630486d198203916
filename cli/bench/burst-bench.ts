import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../free-port.js';
import type Docker from 'dockerode';
import { loadConfig } from '../../src/config.js';
import type { Logger } from '../../src/logger.js';
import { buildBot } from '../../src/main.js';
import { DockerSandbox } from '../../sandbox/docker-sandbox.js';
import { threadFilesDir } from '../../sandbox/mirror-retention.js';
import type { SandboxRuntime } from '../../sandbox/runtime.js';
import { round } from './bench-stats.js';
import { benchRuntimes } from './bench-runtimes.js';

export interface BurstBenchOptions {
  docker: Docker;
  image: string;
  /** The environment the bot would start with; the bench adds its own web chat, data directory and pool. */
  env: NodeJS.ProcessEnv;
  /** New threads started at the same moment. @defaultValue 10 */
  threads: number;
  /** Scratch directory for the bots' data. */
  dataDir: string;
  logger: Logger;
  out: (line: string) => void;
  /** The runtimes to measure. @defaultValue runc, and runsc when the engine has it */
  runtimes?: SandboxRuntime[];
}

/** One burst: the time from posting each thread's message to its answer, in ms, and the pool's hits. */
export interface BurstRow {
  runtime: SandboxRuntime;
  /** `fixed` (a pool of THREADLAB_SANDBOX_POOL_SIZE) or `grows` (up to THREADLAB_SANDBOX_POOL_MAX). */
  pool: 'fixed' | 'grows';
  /** `first`: the pool at its size; `next`: after the first burst, the pool filled again (to what it learned, when it grows). */
  burst: 'first' | 'next';
  readyBefore: number;
  hits: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

/** The code every new thread runs: a pandas import and a print, answered in direct mode (no model). */
const MESSAGE = '```python\nimport pandas as pd\nprint(pd.__version__)\n```';
/** A burst's answers must come within this, or the bench fails rather than wait forever. */
const ANSWER_TIMEOUT_MS = 120_000;

const percentile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;

/** Waits for the `reply` event of a thread's event stream; resolves with the time it came. */
async function replyTime(base: string, threadId: string, signal: AbortSignal): Promise<() => Promise<number>> {
  const response = await fetch(`${base}/api/threads/${threadId}/events`, { signal });
  if (!response.ok || !response.body) throw new Error(`events of ${threadId}: HTTP ${response.status}`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  return async () => {
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the event stream of ${threadId} ended before its answer`);
      text += decoder.decode(value, { stream: true });
      if (/^event: reply$/m.test(text)) {
        const at = performance.now();
        await reader.cancel();
        return at;
      }
      if (text.length > 1_000_000) text = text.slice(-1000);
    }
  };
}

/** Starts `n` new threads at once through the web chat's API and times each to its answer. */
async function burst(base: string, n: number): Promise<number[]> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), ANSWER_TIMEOUT_MS);
  try {
    const threads = await Promise.all(
      Array.from({ length: n }, async () => {
        const created = await fetch(`${base}/api/threads`, { method: 'POST', signal: abort.signal });
        const { thread } = (await created.json()) as { thread: { id: string } };
        return { id: thread.id, answered: await replyTime(base, thread.id, abort.signal) };
      }),
    );
    return await Promise.all(
      threads.map(async (t) => {
        const started = performance.now();
        const posted = await fetch(`${base}/api/threads/${t.id}/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text: MESSAGE }),
          signal: abort.signal,
        });
        if (posted.status !== 202) throw new Error(`posting to ${t.id}: HTTP ${posted.status} ${await posted.text()}`);
        return (await t.answered()) - started;
      }),
    );
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

/**
 * `threadlab bench burst`: N new threads at the same moment through the real path (the web chat's HTTP API, the
 * bot, the queue, a worker, the sandbox, the reply), timed from each message to its answer. Under each OCI runtime,
 * side by side: a fixed pool of THREADLAB_SANDBOX_POOL_SIZE, and the pool that grows with demand, whose second
 * burst meets the pool filled to what the first taught it. One web user stands for N people, so the per-user
 * limits are raised to N; THREADLAB_CONCURRENCY and the other settings are the environment's.
 */
export async function benchBurst(options: BurstBenchOptions): Promise<BurstRow[]> {
  const { out } = options;
  const { runtimes, runscSkipped } = await benchRuntimes(options.docker, options.runtimes);
  const base = loadConfig(options.env);
  const n = options.threads;
  const poolSize = base.sandbox.poolSize;
  const poolMax = Math.max(base.sandbox.poolMax ?? poolSize, poolSize);
  out(
    `threadlab bench burst: ${n} new threads at once through the web chat's API, each running a pandas import in ` +
      `direct mode; THREADLAB_CONCURRENCY=${base.queue.concurrency}, pool ${poolSize} (fixed) and ${poolSize}..${poolMax} (grows)`,
  );
  if (runscSkipped) out(`  runsc left out: ${runscSkipped}`);
  const rows: BurstRow[] = [];
  for (const runtime of runtimes) {
    for (const pool of ['fixed', 'grows'] as const) {
      rows.push(...(await measure({ ...options, runtime, pool, poolSize, poolMax, n })));
    }
  }
  out('');
  out('runtime  pool   burst  ready before  hits   p50 ms   p95 ms   max ms');
  for (const r of rows) {
    out(
      `${r.runtime.padEnd(8)} ${r.pool.padEnd(6)} ${r.burst.padEnd(6)} ${String(r.readyBefore).padStart(12)}  ` +
        `${`${r.hits}/${n}`.padStart(5)} ${r.p50Ms.toFixed(0).padStart(8)} ${r.p95Ms.toFixed(0).padStart(8)} ${r.maxMs.toFixed(0).padStart(8)}`,
    );
  }
  for (const runtime of runtimes) {
    const fixed = rows.find((r) => r.runtime === runtime && r.pool === 'fixed' && r.burst === 'next');
    const next = rows.find((r) => r.runtime === runtime && r.pool === 'grows' && r.burst === 'next');
    if (!fixed || !next) continue;
    out(
      `${runtime}: the pool that grew answers the next burst at p50 ${next.p50Ms.toFixed(0)} ms / p95 ${next.p95Ms.toFixed(0)} ms, ` +
        `${round(fixed.p50Ms / next.p50Ms)}× / ${round(fixed.p95Ms / next.p95Ms)}× faster than the fixed pool's next burst; ` +
        `target p50 ≤ 1 s and p95 ≤ 3 s: ${next.p50Ms <= 1000 && next.p95Ms <= 3000 ? 'met' : 'NOT met'}`,
    );
  }
  return rows;
}

async function measure(
  o: BurstBenchOptions & {
    runtime: SandboxRuntime;
    pool: 'fixed' | 'grows';
    poolSize: number;
    poolMax: number;
    n: number;
  },
): Promise<BurstRow[]> {
  const dataDir = mkdtempSync(join(o.dataDir, `burst-${o.runtime}-${o.pool}-`));
  const port = await freePort();
  const config = loadConfig({
    ...o.env,
    SLACK_BOT_TOKEN: undefined,
    SLACK_APP_TOKEN: undefined,
    DISCORD_TOKEN: undefined,
    REDIS_URL: undefined,
    THREADLAB_WEB_ENABLED: 'true',
    THREADLAB_WEB_HOST: '127.0.0.1',
    THREADLAB_WEB_PORT: String(port),
    THREADLAB_DATA_DIR: dataDir,
    THREADLAB_SANDBOX_RUNTIME: o.runtime,
    THREADLAB_SANDBOX_POOL_SIZE: String(o.poolSize),
    THREADLAB_SANDBOX_POOL_MAX: String(o.pool === 'fixed' ? o.poolSize : o.poolMax),
    THREADLAB_USER_MAX_CONCURRENT: String(Math.max(o.n, 2)),
    THREADLAB_USER_MAX_PER_MINUTE: String(Math.max(o.n * 4, 20)),
  });
  const counts = { hits: 0 };
  const sandbox = new DockerSandbox({
    docker: o.docker,
    image: o.image,
    limits: config.sandbox,
    dataDir: threadFilesDir(config.dataDir),
    runtime: o.runtime,
    logger: o.logger,
    instanceId: `bench-burst-${process.pid}-${randomBytes(3).toString('hex')}`,
    observer: { size: () => {}, sessions: () => {}, hit: () => (counts.hits += 1), miss: () => {} },
  });
  const rows: BurstRow[] = [];
  let bot: Awaited<ReturnType<typeof buildBot>> | undefined;
  try {
    await sandbox.start();
    bot = await buildBot(config, o.logger, { overrides: { sandbox } });
    await bot.start();
    const base = `http://127.0.0.1:${port}`;
    for (const which of ['first', 'next'] as const) {
      await sandbox.pool.whenFull();
      const readyBefore = sandbox.pool.available;
      counts.hits = 0;
      const times = (await burst(base, o.n)).sort((a, b) => a - b);
      rows.push({
        runtime: o.runtime,
        pool: o.pool,
        burst: which,
        readyBefore,
        hits: counts.hits,
        p50Ms: round(percentile(times, 0.5)),
        p95Ms: round(percentile(times, 0.95)),
        maxMs: round(times[times.length - 1] ?? NaN),
      });
      o.out(`  ${o.runtime}, ${o.pool} pool, ${which} burst: ${times.map((t) => t.toFixed(0)).join(', ')} ms`);
    }
  } finally {
    // The bot's stop closes the sandbox (its containers go); without a bot it is closed here.
    if (bot) await bot.stop();
    else await sandbox.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}
