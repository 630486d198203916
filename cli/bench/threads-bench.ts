import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import type { Logger } from '../../src/logger.js';
import { DockerSandbox, LABELS, type SandboxLimits, type SandboxRuntime } from '../../app/sandbox-kit.js';
import { round, stats, type BenchStats } from './bench-stats.js';
import { benchRuntimes } from './bench-runtimes.js';
import { readFile } from 'node:fs/promises';
import { hostAvailableMb, privateBytes } from './sandbox-memory.js';

export interface ThreadsBenchOptions {
  docker: Docker;
  image: string;
  /** The configured limits: pool, sessions and save delay as the bot would run them; the idle time is the bench's. */
  limits: SandboxLimits;
  dataDir: string;
  logger: Logger;
  out: (line: string) => void;
  /** Threads that each get a first message. @defaultValue 200 */
  threads: number;
  /** Every how many threads one gets a second message after going idle (restored). @defaultValue 4 */
  revisitEvery?: number;
  /** Messages answered at the same time, as THREADLAB_CONCURRENCY. @defaultValue 4 */
  concurrency?: number;
  /**
   * The idle time after which a saved thread's container goes, standing in for THREADLAB_SANDBOX_IDLE_TTL_MS's
   * minutes: the bench compresses an hour of use into minutes. @defaultValue 3000
   */
  idleTtlMs?: number;
  /** The runtimes to measure. @defaultValue runc, and runsc when the engine has it */
  runtimes?: SandboxRuntime[];
}

export interface ThreadsRow {
  runtime: SandboxRuntime;
  threads: number;
  /** Threads that answered a second message with their variables back (checked by value). */
  restored: number;
  /** Time to the answer of a thread's first message (a container from the pool, or started). */
  fresh: BenchStats;
  /** First messages that found a ready container. */
  freshHits: number;
  /** Threads coming back that found a ready container. */
  backHits: number;
  /** Time to the answer of a message to a thread whose container went idle: a container, files and variables back. */
  back: BenchStats;
  /** Most containers alive at once: threads' and the warm pool's. */
  peakContainers: number;
  /** Most threads holding a container at once. */
  peakLiveThreads: number;
  /** The largest fall of the host's MemAvailable from before the sandbox started, in MiB (other processes move it too). */
  peakMemoryDropMb: number;
  /** The same per container at the peak: what one more live container would cost, in MiB. */
  perContainerMb: number;
  /**
   * The most the bench's containers held at once by their own memory cgroups (file cache left out, gVisor's memory
   * file included), in MiB: the figure other processes do not move. Undefined where the host's cgroups cannot be
   * read (cgroup v1 under /sys/fs/cgroup/memory/docker, or v2 under system.slice).
   */
  peakCgroupMb: number | undefined;
  seconds: number;
}

/** How long a batch waits for the pool's containers before the bench fails rather than wait forever. */
const POOL_WAIT_MS = 120_000;

/** A thread's first message: a small state (a list and a dict) to save, and a printed answer to check. */
const FIRST = (i: number) => `x = list(range(${500 + i}))\nmeta = {"thread": ${i}}\nprint(len(x))`;
/** A later message, answered from the saved variables. */
const AGAIN = 'print(sum(x), meta["thread"])';
const expectedAgain = (i: number) => `${((500 + i) * (499 + i)) / 2} ${i}\n`;

const percentile = (values: number[]) => stats(values);

/**
 * `threadlab bench threads`: N threads in active use on one worker through DockerSandbox, the path every message
 * takes to its run. Each thread gets a message that leaves a small state, then goes idle; its container goes once
 * the state is saved and the idle time passed; every `revisitEvery`-th thread then gets a second message, which
 * brings its container and variables back. Printed per runtime: the peak fall of the host's available memory, the
 * most containers alive at once, and p50/p95 time to answer for a thread's first message and for a thread coming
 * back. The idle time is seconds, not THREADLAB_SANDBOX_IDLE_TTL_MS's minutes, so the hour fits in minutes, and
 * messages come `concurrency` at a time once the pool is full again (as after the minutes between messages); the
 * pool, sessions and save delay are the configured ones.
 */
export async function benchThreads(options: ThreadsBenchOptions): Promise<ThreadsRow[]> {
  const { out } = options;
  const { runtimes, runscSkipped } = await benchRuntimes(options.docker, options.runtimes);
  const revisitEvery = Math.max(1, options.revisitEvery ?? 4);
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const idleTtlMs = options.idleTtlMs ?? 3000;
  out(
    `threadlab bench threads: ${options.threads} threads, each a message leaving a small state, then idle; every ` +
      `${revisitEvery}th comes back. ${concurrency} messages at a time, idle time ${idleTtlMs} ms (standing in for ` +
      `THREADLAB_SANDBOX_IDLE_TTL_MS), pool ${options.limits.poolSize}..${options.limits.poolMax ?? options.limits.poolSize}, ` +
      `THREADLAB_SANDBOX_MAX_SESSIONS=${options.limits.maxSessions}`,
  );
  if (runscSkipped) out(`  runsc left out: ${runscSkipped}`);
  const rows: ThreadsRow[] = [];
  for (const runtime of runtimes) {
    rows.push(await measure({ ...options, runtime, revisitEvery, concurrency, idleTtlMs }));
    const r = rows[rows.length - 1]!;
    out(
      `  ${runtime}: ${r.threads} threads in ${r.seconds} s, ${r.restored} came back with their variables; ` +
        `pool hits ${r.freshHits}/${r.threads} first, ${r.backHits}/${r.back.samples} back; ` +
        `peak ${r.peakContainers} containers (${r.peakLiveThreads} threads live), host memory -${r.peakMemoryDropMb} MiB` +
        (r.peakCgroupMb !== undefined ? `, containers' own cgroups ${r.peakCgroupMb} MiB at most` : ''),
    );
  }
  out('');
  out(
    'runtime  threads  back  peak containers  peak live  MemAvailable fall MiB  cgroups MiB  fresh p50/p95 ms  back p50/p95 ms',
  );
  for (const r of rows) {
    out(
      `${r.runtime.padEnd(8)} ${String(r.threads).padStart(7)} ${String(r.restored).padStart(5)} ` +
        `${String(r.peakContainers).padStart(16)} ${String(r.peakLiveThreads).padStart(10)} ` +
        `${String(r.peakMemoryDropMb).padStart(22)} ${String(r.peakCgroupMb ?? '-').padStart(12)} ` +
        `${`${r.fresh.p50Ms.toFixed(0)} / ${r.fresh.p95Ms.toFixed(0)}`.padStart(17)} ` +
        `${`${r.back.p50Ms.toFixed(0)} / ${r.back.p95Ms.toFixed(0)}`.padStart(16)}`,
    );
  }
  for (const r of rows) {
    const each = r.peakCgroupMb !== undefined ? r.peakCgroupMb / Math.max(1, r.peakContainers) : r.perContainerMb;
    out(
      `${r.runtime}: memory stayed within ${r.peakContainers} containers (about ${round(each)} MiB each at the peak) ` +
        `for ${r.threads} threads; kept live, they would hold about ${round((r.threads * each) / 1024)} GiB`,
    );
  }
  return rows;
}

async function measure(
  o: ThreadsBenchOptions & { runtime: SandboxRuntime; revisitEvery: number; concurrency: number; idleTtlMs: number },
): Promise<ThreadsRow> {
  const sandbox = new DockerSandbox({
    docker: o.docker,
    image: o.image,
    limits: { ...o.limits, idleTtlMs: o.idleTtlMs },
    dataDir: o.dataDir,
    logger: o.logger,
    runtime: o.runtime,
    instanceId: `bench-threads-${o.runtime}-${process.pid}-${randomBytes(3).toString('hex')}`,
    observer: { size: () => {}, sessions: () => {}, hit: () => (hits.count += 1), miss: () => {} },
  });
  const hits = { count: 0 };
  const started = performance.now();
  const baselineMb = await hostAvailableMb();
  const peak = { lowMb: baselineMb, containers: 0, live: 0, containersAtLow: 1 };
  const sample = async () => {
    const available = await hostAvailableMb();
    const live = sandbox.liveSessions();
    const containers = live + sandbox.pool.available;
    peak.containers = Math.max(peak.containers, containers);
    peak.live = Math.max(peak.live, live);
    if (available < peak.lowMb) {
      peak.lowMb = available;
      peak.containersAtLow = Math.max(1, containers);
    }
  };
  const sampler = setInterval(() => void sample().catch(() => undefined), 200);
  let peakCgroupMb: number | undefined;
  const cgroupSampler = setInterval(() => {
    void containersMemoryMb(o.docker, sandbox.instanceId)
      .then((mb) => {
        if (mb !== undefined) peakCgroupMb = Math.max(peakCgroupMb ?? 0, mb);
      })
      .catch(() => undefined);
  }, 1000);
  const key = (i: number) => `bench-threads-${i}`;
  try {
    await sandbox.start();
    const fresh = await inBatches(sandbox, o.threads, o.concurrency, async (i) => {
      const t = performance.now();
      const result = await sandbox.run(key(i), { language: 'python', code: FIRST(i) });
      if (result.status !== 'ok' || result.stdout !== `${500 + i}\n`) {
        throw new Error(`bench thread ${i} failed: ${result.error?.value ?? result.status} ${result.stdout}`);
      }
      return performance.now() - t;
    });
    const freshHits = hits.count;
    const revisits = Array.from({ length: o.threads }, (_, i) => i).filter((i) => i % o.revisitEvery === 0);
    // Each comes back only once its container went: saved, then idle for the idle time.
    const deadline = Date.now() + o.idleTtlMs + 120_000;
    while (revisits.some((i) => sandbox.isLive(key(i))) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    hits.count = 0;
    let restored = 0;
    const back = await inBatches(sandbox, revisits.length, o.concurrency, async (n) => {
      const i = revisits[n]!;
      const t = performance.now();
      const result = await sandbox.run(key(i), { language: 'python', code: AGAIN });
      const ms = performance.now() - t;
      if (result.status !== 'ok' || result.stdout !== expectedAgain(i)) {
        throw new Error(
          `bench thread ${i} did not come back: ${result.error?.value ?? result.status} ${result.stdout}`,
        );
      }
      if (result.stateRestored) restored += 1;
      return ms;
    });
    await sample();
    const dropMb = Math.max(0, baselineMb - peak.lowMb);
    return {
      runtime: o.runtime,
      threads: o.threads,
      restored,
      fresh: percentile(fresh),
      back: percentile(back),
      freshHits,
      backHits: hits.count,
      peakContainers: peak.containers,
      peakLiveThreads: peak.live,
      peakMemoryDropMb: round(dropMb),
      perContainerMb: round(dropMb / peak.containersAtLow),
      peakCgroupMb: peakCgroupMb === undefined ? undefined : round(peakCgroupMb),
      seconds: round((performance.now() - started) / 1000),
    };
  } finally {
    clearInterval(sampler);
    clearInterval(cgroupSampler);
    await sandbox.close();
  }
}

/** The memory of one container's cgroup as privateBytes counts it, or undefined where it cannot be read. */
async function cgroupBytes(id: string): Promise<number | undefined> {
  for (const dir of [`/sys/fs/cgroup/memory/docker/${id}`, `/sys/fs/cgroup/system.slice/docker-${id}.scope`]) {
    const stat = await readFile(`${dir}/memory.stat`, 'utf8').catch(() => undefined);
    if (stat === undefined) continue;
    const usage =
      (await readFile(`${dir}/memory.usage_in_bytes`, 'utf8').catch(() => undefined)) ??
      (await readFile(`${dir}/memory.current`, 'utf8').catch(() => undefined));
    if (usage === undefined) return undefined;
    const stats = Object.fromEntries(
      stat
        .trim()
        .split('\n')
        .map((line) => line.split(' '))
        .map(([k, v]) => [k, Number(v)]),
    ) as Record<string, number>;
    return privateBytes({ usage: Number(usage), stats });
  }
  return undefined;
}

/** What the containers of one sandbox instance hold by their cgroups, in MiB; undefined if none can be read. */
async function containersMemoryMb(docker: Docker, instanceId: string): Promise<number | undefined> {
  const list = await docker.listContainers({ filters: { label: [`${LABELS.instance}=${instanceId}`] } });
  const bytes = await Promise.all(list.map((c) => cgroupBytes(c.Id)));
  const known = bytes.filter((b): b is number => b !== undefined);
  if (list.length > 0 && known.length === 0) return undefined;
  return known.reduce((a, b) => a + b, 0) / (1024 * 1024);
}

/**
 * Runs `count` jobs in batches of `concurrency` at once, each batch once the pool has a container for each: the hour of use the
 * bench compresses has minutes between a thread's messages, in which the pool refills, so messages meet ready
 * containers as they would (`threadlab bench burst` measures what many at once cost). Returns results by index.
 */
async function inBatches(
  sandbox: DockerSandbox,
  count: number,
  concurrency: number,
  job: (i: number) => Promise<number>,
): Promise<number[]> {
  const results: number[] = new Array<number>(count);
  for (let start = 0; start < count; start += concurrency) {
    const batch = Array.from({ length: Math.min(concurrency, count - start) }, (_, k) => start + k);
    // Ready containers for the whole batch (the pool's full target, when it is smaller).
    const deadline = Date.now() + POOL_WAIT_MS;
    while (sandbox.pool.available < Math.min(batch.length, sandbox.pool.target)) {
      if (Date.now() > deadline)
        throw new Error(`bench threads: the pool had no ready containers in ${POOL_WAIT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await Promise.all(batch.map(async (i) => (results[i] = await job(i))));
  }
  return results;
}
