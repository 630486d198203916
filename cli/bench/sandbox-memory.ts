import { readFile } from 'node:fs/promises';
import type Docker from 'dockerode';
import { LABELS, POOL_SESSION, type DockerSandbox } from '../../app/sandbox-kit.js';
import { round } from './bench-stats.js';

/** What one idle session holds after a typical first turn: the data stack imported and a chart drawn. */
const TYPICAL_TURN = [
  'import pandas as pd, numpy as np, matplotlib.pyplot as plt',
  'df = pd.DataFrame({"x": np.arange(1000), "y": np.random.default_rng(1).normal(size=1000)})',
  'plt.plot(df.x, df.y); plt.title("bench")',
  'print(df.describe().loc["mean"])',
].join('\n');

/** How long memory is left to settle after the sessions went idle (the state save, the chart's buffers freed). */
const SETTLE_MS = 3000;
/** How long memory is left to settle after the kernels went lean (the old processes are gone before they answer). */
const LEAN_SETTLE_MS = 1000;

/** The host memory of idle sandboxes, measured two ways. */
export interface IdleMemory {
  /** Sessions measured. */
  sessions: number;
  /**
   * Memory each idle session's cgroup holds that no other container shares, in MiB: everything charged to it
   * except the page cache of files (the image's libraries, shared by every container that maps them). Under gVisor
   * this includes the sandbox's memory file, which `docker stats` counts as cache.
   */
  cgroupMb: number;
  /** The engine's own figure (what `docker stats` prints: usage minus inactive file cache), in MiB. */
  engineMb: number;
  /**
   * How much MemAvailable of the host fell per session while they started and went idle, in MiB. Every other
   * process on the host moves this figure too, so it is printed beside the cgroup's, not instead of it.
   */
  hostDropMb: number;
  /**
   * The same sessions once their kernels went lean (THREADLAB_SANDBOX_KERNEL_IDLE_MS: variables saved, the kernel
   * replaced by a fresh one in the same container), the cgroup's figure and the engine's, in MiB.
   */
  lean: { cgroupMb: number; engineMb: number };
}

interface MemoryStats {
  usage?: number;
  stats?: Record<string, number | undefined>;
}

/**
 * The memory a container holds privately, in bytes: cgroup v1 charges shared memory (gVisor's memory file) as
 * cache, and file pages as active/inactive file; cgroup v2 counts shared memory inside `file`. Only the file cache
 * is left out.
 */
export function privateBytes(memory: MemoryStats): number {
  const usage = memory.usage ?? 0;
  const s = memory.stats ?? {};
  const fileCache =
    s.total_active_file !== undefined || s.total_inactive_file !== undefined
      ? (s.total_active_file ?? 0) + (s.total_inactive_file ?? 0)
      : (s.file ?? 0) - (s.shmem ?? 0);
  return Math.max(0, usage - Math.max(0, fileCache));
}

/** The engine's figure, as `docker stats` computes it. */
export function engineBytes(memory: MemoryStats): number {
  const usage = memory.usage ?? 0;
  const s = memory.stats ?? {};
  return Math.max(0, usage - (s.total_inactive_file ?? s.inactive_file ?? 0));
}

/** MemAvailable of the host, in MiB. */
export async function hostAvailableMb(): Promise<number> {
  const match = /^MemAvailable:\s+(\d+) kB$/m.exec(await readFile('/proc/meminfo', 'utf8'));
  if (!match) throw new Error('MemAvailable is missing from /proc/meminfo');
  return Number(match[1]) / 1024;
}

/**
 * Starts `sessions` new threads on `sandbox` (no pool: each pays for its own container), gives each a typical first
 * turn, lets them go idle, and measures what they hold; then has their kernels go lean, as an idle time of
 * THREADLAB_SANDBOX_KERNEL_IDLE_MS does, and measures again. The threads are reset afterwards.
 */
export async function measureIdleMemory(
  docker: Docker,
  sandbox: DockerSandbox,
  options: { instanceId: string; sessions: number },
): Promise<IdleMemory> {
  const keys = Array.from({ length: options.sessions }, (_, i) => `bench-idle-${i}`);
  const before = await hostAvailableMb();
  try {
    for (const key of keys) {
      const result = await sandbox.run(key, { language: 'python', code: TYPICAL_TURN });
      if (result.status !== 'ok') throw new Error(`bench run failed: ${result.error?.value ?? result.status}`);
    }
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const after = await hostAvailableMb();
    const labels = [`${LABELS.instance}=${options.instanceId}`];
    const { cgroupMb, engineMb } = await containerMemory(docker, labels);
    for (const key of keys) {
      await sandbox.saveState(key); // the deferred save, if it has not landed yet: only a saved thread goes lean
      if (!(await sandbox.makeLean(key))) throw new Error(`the kernel of idle thread ${key} did not go lean`);
    }
    await new Promise((resolve) => setTimeout(resolve, LEAN_SETTLE_MS));
    const lean = await containerMemory(docker, labels);
    return {
      sessions: keys.length,
      cgroupMb,
      engineMb,
      hostDropMb: round((before - after) / keys.length),
      lean: { cgroupMb: lean.cgroupMb, engineMb: lean.engineMb },
    };
  } finally {
    for (const key of keys) await sandbox.reset(key).catch(() => undefined);
  }
}

/**
 * What an idle pooled sandbox holds (a container started ahead of demand, its kernel without the data stack), in
 * MiB, the cgroup's figure and the engine's, averaged over the pool of `instanceId` once it is full.
 */
export async function measurePoolMemory(
  docker: Docker,
  instanceId: string,
): Promise<{ containers: number; cgroupMb: number; engineMb: number }> {
  // Pooled containers ran nothing since they became ready: there is nothing to settle.
  return containerMemory(docker, [`${LABELS.instance}=${instanceId}`, `${LABELS.session}=${POOL_SESSION}`]);
}

/** The memory one container holds privately, as (e) counts it, in MiB (NaN when the engine reports none). */
export async function containerPrivateMib(docker: Docker, id: string): Promise<number> {
  const memory = ((await docker.getContainer(id).stats({ stream: false })) as { memory_stats?: MemoryStats })
    .memory_stats;
  return memory?.usage ? privateBytes(memory) / (1024 * 1024) : NaN;
}

/** The mean private and engine memory of the running containers with all of `labels`, in MiB. */
async function containerMemory(
  docker: Docker,
  labels: string[],
): Promise<{ containers: number; cgroupMb: number; engineMb: number }> {
  const containers = await docker.listContainers({ filters: { label: labels } });
  const own: number[] = [];
  const engine: number[] = [];
  for (const info of containers) {
    const memory = ((await docker.getContainer(info.Id).stats({ stream: false })) as { memory_stats?: MemoryStats })
      .memory_stats;
    if (!memory?.usage) continue;
    own.push(privateBytes(memory));
    engine.push(engineBytes(memory));
  }
  const mib = (values: number[]) =>
    values.length ? round(values.reduce((a, b) => a + b, 0) / values.length / (1024 * 1024)) : NaN;
  return { containers: own.length, cgroupMb: mib(own), engineMb: mib(engine) };
}
