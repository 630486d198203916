import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { STATE_DIR_PARTS, type SandboxLimits, type DockerSandbox } from '../../app/sandbox-kit.js';
import { threadHash } from '../../src/domain/thread-key.js';
import { round, stats, type BenchStats } from './bench-stats.js';
import { benchSandboxWith, runOk, type DurableBenchOptions } from './durable-bench-options.js';

const MiB = 1024 * 1024;
const SMALL_VARIABLES = 1000;

/** Saving and restoring one kind of thread. */
export interface StateBench {
  /** Variables the thread holds, as its last save counted them (module aliases included). */
  variables: number;
  /** Size of the saved state on the host, in bytes. */
  savedBytes: number;
  /** From asking for a save to the state being on the host and checked: the kernel pickles, the bot copies. */
  save: BenchStats;
  /** Of the save, the kernel's own time pickling the variables to a file (the rest is copying it to the host). */
  pickleInKernel: BenchStats;
  /**
   * A new thread's first run (`print(1)`, pool hit) with this state saved, minus the same run with none just
   * before it: what restoring adds, in paired samples.
   */
  restoreExtra: BenchStats;
  /** Variables the first run after each restore said came back. */
  restoredVariables: number;
  /** What a check of the values printed in the thread after its last save and after every restore (all equal). */
  check: { saved: string; restored: string };
}

export interface DurableStateBench {
  /** The limits saves and restores ran with: the configured ones, raised where the DataFrame needs it. */
  limits: { memoryMb: number; dataMb: number; fileSizeMb: number; stateMaxMb: number; raised: string[] };
  dataFrame: StateBench & { megabytes: number; rows: number };
  smallVariables: StateBench;
  /** A new thread's first run (`print(1)`, pool hit) with no saved state: the restores' baseline. */
  freshFirstRun: BenchStats;
  /** `import pandas` in a new Python process in a session container: what a restore into a pooled kernel skips. */
  pandasImport: BenchStats;
}

/**
 * The configured limits, raised where a thread holding a DataFrame of `frameMb` MB needs more: its kernel holds
 * pandas, the frame and a pickled copy while it saves, and the state file sits in /mnt/data (a tmpfs, counted as
 * memory) on its way out and in.
 */
export function limitsForFrame(limits: SandboxLimits, frameMb: number): { limits: SandboxLimits; raised: string[] } {
  const frameMib = Math.ceil((frameMb * 1e6) / MiB);
  const need = {
    memoryMb: 320 + 4 * frameMib,
    dataMb: 2 * frameMib + 16,
    fileSizeMb: frameMib + 16,
    stateMaxMb: frameMib + 16,
  };
  const raised: string[] = [];
  const raise = (name: string, configured: number, needed: number) => {
    if (configured >= needed) return configured;
    raised.push(`${name} ${configured} -> ${needed}`);
    return needed;
  };
  return {
    limits: {
      ...limits,
      memoryMb: raise('THREADLAB_SANDBOX_MEMORY_MB', limits.memoryMb, need.memoryMb),
      dataMb: raise('THREADLAB_SANDBOX_DATA_MB', limits.dataMb, need.dataMb),
      fileSizeMb: raise('THREADLAB_SANDBOX_FILE_SIZE_MB', limits.fileSizeMb, need.fileSizeMb),
      stateMaxBytes: raise('THREADLAB_STATE_MAX_MB', Math.floor(limits.stateMaxBytes / MiB), need.stateMaxMb) * MiB,
    },
    raised,
  };
}

interface ThreadKind {
  key: string;
  setup: string;
  /** Changes the state, so each save writes and copies it all (an unchanged state is not copied). */
  change: (i: number) => string;
  check: string;
}

const frameThread = (rows: number): ThreadKind => ({
  key: 'bench-state-frame',
  setup: [
    'import numpy as np',
    'import pandas as pd',
    `df = pd.DataFrame({"x": np.random.default_rng(7).random(${rows})})`,
  ].join('\n'),
  change: (i) => `df.iat[0, 0] = ${i}`,
  check: 'print(len(df), float(df.x.sum()).hex(), float(df.x.iat[0]), np.__name__, pd.__name__)',
});

const smallThread: ThreadKind = {
  key: 'bench-state-small',
  setup: [
    `for _k in range(${SMALL_VARIABLES}):`,
    '    globals()[f"v{_k}"] = (_k, f"s{_k}", [_k, _k + 1])[_k % 3]',
    'del _k',
  ].join('\n'),
  change: (i) => `v0 = ${i}`,
  check: `print(sum(f"v{k}" in globals() for k in range(${SMALL_VARIABLES})), v0, v1, v2, v${SMALL_VARIABLES - 1})`,
};

const PANDAS_IMPORT = [
  'import subprocess, sys',
  'probe = "import time; t = time.perf_counter(); import pandas; print((time.perf_counter() - t) * 1000)"',
  'print(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip())',
].join('\n');

/**
 * Save and restore times of a thread holding a DataFrame of `frameMb` MB (float64) and of a thread with 1,000
 * small variables, on DockerSandbox's own paths: `saveState` is the save a run schedules and a recycle makes;
 * a restore is a new thread's first run from the pool with a saved state in its host copy (put there as a shared
 * THREADLAB_DATA_DIR would after a restart or failover), every restore's values checked against the original.
 */
export async function benchDurableState(options: DurableBenchOptions, frameMb: number): Promise<DurableStateBench> {
  const { limits, raised } = limitsForFrame(options.limits, frameMb);
  // Only the measured saves save: the deferred one after each run would race them.
  const sandbox = benchSandboxWith(options, { ...limits, poolSize: 1, poolMax: 1, stateSaveDelayMs: 600_000 }, 'state');
  const rows = Math.round((frameMb * 1e6) / 8);
  const fresh: number[] = [];
  try {
    await sandbox.start();
    const measure = async (kind: ThreadKind): Promise<StateBench> => {
      await runOk(sandbox, kind.key, kind.setup);
      const saved = await measureSaves(sandbox, kind, options.slow);
      const check = (await runOk(sandbox, kind.key, kind.check)).stdout;
      const restores = await measureRestores(sandbox, options, kind, check);
      fresh.push(...restores.fresh);
      await sandbox.reset(kind.key);
      return { ...saved, ...restores.bench, check: { saved: check, restored: restores.restoredCheck } };
    };
    const smallVariables = await measure(smallThread);
    const dataFrame = { ...(await measure(frameThread(rows))), megabytes: frameMb, rows };
    const pandasImport = await measurePandasImport(sandbox, options.slow);
    return {
      limits: {
        memoryMb: limits.memoryMb,
        dataMb: limits.dataMb,
        fileSizeMb: limits.fileSizeMb,
        stateMaxMb: round(limits.stateMaxBytes / MiB),
        raised,
      },
      dataFrame,
      smallVariables,
      freshFirstRun: stats(fresh),
      pandasImport,
    };
  } finally {
    await sandbox.close();
  }
}

async function measureSaves(
  sandbox: DockerSandbox,
  kind: ThreadKind,
  samples: number,
): Promise<Pick<StateBench, 'variables' | 'savedBytes' | 'save' | 'pickleInKernel'>> {
  const times: number[] = [];
  const pickle: number[] = [];
  let last = { variables: 0, savedBytes: 0 };
  for (let i = 0; i < samples; i++) {
    await runOk(sandbox, kind.key, kind.change(i));
    const start = performance.now();
    const outcome = await sandbox.saveState(kind.key);
    times.push(performance.now() - start);
    if (outcome?.kind !== 'saved') {
      throw new Error(`bench save of ${kind.key} did not save: ${JSON.stringify(outcome ?? 'nothing to save')}`);
    }
    last = { variables: outcome.variables, savedBytes: outcome.bytes };
    pickle.push(outcome.seconds * 1000);
  }
  return { ...last, save: stats(times), pickleInKernel: stats(pickle) };
}

async function measureRestores(
  sandbox: DockerSandbox,
  options: DurableBenchOptions,
  kind: ThreadKind,
  expected: string,
): Promise<{ bench: Pick<StateBench, 'restoreExtra' | 'restoredVariables'>; fresh: number[]; restoredCheck: string }> {
  const stateDir = (key: string) => join(options.dataDir, threadHash(key), ...STATE_DIR_PARTS);
  const firstRun = async (key: string) => {
    await sandbox.pool.whenFull();
    const start = performance.now();
    const result = await runOk(sandbox, key, 'print(1)');
    return { ms: performance.now() - start, result };
  };
  const fresh: number[] = [];
  const extra: number[] = [];
  let restoredVariables = Infinity;
  let restoredCheck = '';
  for (let i = 0; i < options.slow; i++) {
    const without = await firstRun(`${kind.key}-fresh-${i}`);
    await sandbox.reset(`${kind.key}-fresh-${i}`);
    const target = `${kind.key}-restore-${i}`;
    await cp(stateDir(kind.key), stateDir(target), { recursive: true });
    const restored = await firstRun(target);
    const back = restored.result.stateRestored;
    if (!back) {
      throw new Error(`bench restore of ${kind.key} restored nothing: ${restored.result.stateReset?.reason ?? ''}`);
    }
    restoredCheck = (await runOk(sandbox, target, kind.check)).stdout;
    if (restoredCheck !== expected) {
      throw new Error(`bench restore of ${kind.key} brought back ${restoredCheck.trim()}, not ${expected.trim()}`);
    }
    restoredVariables = Math.min(restoredVariables, back.variables);
    await sandbox.reset(target);
    fresh.push(without.ms);
    extra.push(restored.ms - without.ms);
  }
  return { bench: { restoreExtra: stats(extra), restoredVariables }, fresh, restoredCheck };
}

async function measurePandasImport(sandbox: DockerSandbox, samples: number): Promise<BenchStats> {
  const key = 'bench-state-pandas-import';
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const ms = Number.parseFloat((await runOk(sandbox, key, PANDAS_IMPORT)).stdout);
    if (!Number.isFinite(ms) || ms <= 0) throw new Error('bench pandas import printed no time');
    times.push(ms);
  }
  await sandbox.reset(key);
  return stats(times);
}
