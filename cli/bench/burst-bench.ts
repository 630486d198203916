import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { loadConfig } from '../../src/config/index.js';
import type { Logger } from '../../src/logger.js';
import type { SandboxRuntime } from '../../app/sandbox-kit.js';
import { round } from './bench-stats.js';
import { benchRuntimes } from './bench-runtimes.js';
import { startBurstBot, type BurstBot } from './burst-bot.js';
import { burst, percentile } from './burst-load.js';

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
  /**
   * `first`: after a cold start with no memory, the pool at its size; `next`: after the first burst, the pool
   * filled again (to what it learned, when it grows); `restart` (the growing pool): the first burst after the bot
   * restarted on the same data dir, its pool refilled to the demand it remembered.
   */
  burst: 'first' | 'next' | 'restart';
  readyBefore: number;
  /** From the bot's start (`first`, `restart`) or the previous burst's end (`next`) until the pool was full. */
  fillMs: number;
  hits: number;
  /** Threads the bot refused (a limit's 429 or 503), each with the API's reason; their times are left out. */
  refused: string[];
  /** CPU the whole host spent during the burst, both cores together, in seconds (other processes included). */
  cpuS: number;
  /** Of the answered threads. */
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

/**
 * `threadlab bench burst`: N new threads at the same moment through the real path (the web chat's HTTP API, the
 * bot, the queue, a worker, the sandbox, the reply), timed from each message to its answer. Under each OCI runtime,
 * side by side: a fixed pool of THREADLAB_SANDBOX_POOL_SIZE, and the pool that grows with demand, whose second
 * burst meets the pool filled to what the first taught it; then that bot restarts on the same data dir, and its
 * first burst meets the pool refilled to the demand it remembered, beside the first burst of a cold start with no
 * memory. One web user stands for N people, so the per-user limits are raised to N; THREADLAB_CONCURRENCY and the
 * other settings are the environment's.
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
  report(rows, runtimes, options);
  return rows;
}

function report(rows: BurstRow[], runtimes: SandboxRuntime[], { out, threads: n }: BurstBenchOptions): void {
  out('');
  out('runtime  pool   burst    ready before   fill s   hits  refused  cpu s   p50 ms   p95 ms   max ms');
  for (const r of rows) {
    out(
      `${r.runtime.padEnd(8)} ${r.pool.padEnd(6)} ${r.burst.padEnd(8)} ${String(r.readyBefore).padStart(12)} ` +
        `${(r.fillMs / 1000).toFixed(1).padStart(8)} ${`${r.hits}/${n}`.padStart(6)} ${String(r.refused.length).padStart(8)} ` +
        `${r.cpuS.toFixed(0).padStart(6)} ${r.p50Ms.toFixed(0).padStart(8)} ${r.p95Ms.toFixed(0).padStart(8)} ` +
        `${r.maxMs.toFixed(0).padStart(8)}`,
    );
  }
  const refusals = rows.flatMap((r) => r.refused);
  if (refusals.length > 0) out(`refused: ${countedReasons(refusals)}`);
  // A burst with refusals misses the target whatever its times: the refused threads got no answer.
  const met = (r: BurstRow) =>
    r.refused.length === 0 && r.p50Ms <= 1000 && r.p95Ms <= 3000 ? 'met' : `NOT met${refusedNote(r)}`;
  for (const runtime of runtimes) {
    const row = (pool: BurstRow['pool'], which: BurstRow['burst']) =>
      rows.find((r) => r.runtime === runtime && r.pool === pool && r.burst === which);
    const fixed = row('fixed', 'next');
    const next = row('grows', 'next');
    if (fixed && next) {
      out(
        `${runtime}: the pool that grew answers the next burst at p50 ${next.p50Ms.toFixed(0)} ms / p95 ${next.p95Ms.toFixed(0)} ms, ` +
          `${round(fixed.p50Ms / next.p50Ms)}× / ${round(fixed.p95Ms / next.p95Ms)}× faster than the fixed pool's next burst; ` +
          `target p50 ≤ 1 s and p95 ≤ 3 s: ${met(next)}`,
      );
    }
    const cold = row('grows', 'first');
    const restart = row('grows', 'restart');
    if (cold && restart) {
      out(
        `${runtime}: the first burst after a restart that remembered demand (pool refilled to ${restart.readyBefore} ` +
          `in ${(restart.fillMs / 1000).toFixed(1)} s) at p50 ${restart.p50Ms.toFixed(0)} ms / p95 ${restart.p95Ms.toFixed(0)} ms, ` +
          `against ${cold.p50Ms.toFixed(0)} / ${cold.p95Ms.toFixed(0)} ms after a cold start with no memory ` +
          `(pool ${cold.readyBefore}); target p50 ≤ 1 s and p95 ≤ 3 s: ${met(restart)}`,
      );
    }
  }
}

const refusedNote = (r: BurstRow) => (r.refused.length > 0 ? ` (${r.refused.length} refused)` : '');

/** `HTTP 429 rate_limited ×3, HTTP 503 queue_full ×1`: each reason once, with how often it came. */
function countedReasons(reasons: string[]): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts].map(([reason, count]) => `${reason} ×${count}`).join(', ');
}

type MeasureOptions = BurstBenchOptions & {
  runtime: SandboxRuntime;
  pool: 'fixed' | 'grows';
  poolSize: number;
  poolMax: number;
  n: number;
};

/** Waits for the bot's pool to be full, then times one burst on it. */
async function timedBurst(
  o: MeasureOptions,
  bot: BurstBot,
  which: BurstRow['burst'],
  fillFrom: number,
): Promise<BurstRow> {
  await bot.sandbox.pool.whenFull();
  const fillMs = performance.now() - fillFrom;
  const readyBefore = bot.sandbox.pool.available;
  bot.counts.hits = 0;
  const outcome = await burst(bot.base, o.n);
  const times = outcome.timesMs.sort((a, b) => a - b);
  o.out(
    `  ${o.runtime}, ${o.pool} pool, ${which} burst: ${times.map((t) => t.toFixed(0)).join(', ')} ms` +
      (outcome.refused.length > 0 ? `; ${outcome.refused.length} refused (${countedReasons(outcome.refused)})` : ''),
  );
  return {
    runtime: o.runtime,
    pool: o.pool,
    burst: which,
    readyBefore,
    fillMs: round(fillMs),
    hits: bot.counts.hits,
    refused: outcome.refused,
    cpuS: round(outcome.hostCpuS),
    p50Ms: round(percentile(times, 0.5)),
    p95Ms: round(percentile(times, 0.95)),
    maxMs: round(times[times.length - 1] ?? NaN),
  };
}

/**
 * One pool on one runtime: a cold start's first burst and the next; the growing pool's bot then stops and
 * starts again on the same data dir, and its first burst is timed too.
 */
async function measure(o: MeasureOptions): Promise<BurstRow[]> {
  const dataDir = mkdtempSync(join(o.dataDir, `burst-${o.runtime}-${o.pool}-`));
  const start = () =>
    startBurstBot({ ...o, dataDir, threads: o.n, poolMax: o.pool === 'fixed' ? o.poolSize : o.poolMax });
  const rows: BurstRow[] = [];
  let bot: BurstBot | undefined;
  try {
    bot = await start();
    rows.push(await timedBurst(o, bot, 'first', bot.startedAt));
    rows.push(await timedBurst(o, bot, 'next', performance.now()));
    if (o.pool === 'grows') {
      const stopping = bot;
      bot = undefined;
      await stopping.stop();
      bot = await start();
      rows.push(await timedBurst(o, bot, 'restart', bot.startedAt));
    }
  } finally {
    await bot?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}
