import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/index.js';
import { StateStore, type DockerSandbox } from '../../app/sandbox-kit.js';
import { threadHash } from '../../src/domain/thread-key.js';
import { round, stats, type BenchStats } from './bench-stats.js';
import { benchSandboxWith, runOk, type DurableBenchOptions } from './durable-bench-options.js';

const MiB = 1024 * 1024;
/** How much longer than THREADLAB_STATE_SAVE_DELAY_MS the pause between paused runs is: the save's own time. */
const SAVE_ALLOWANCE_MS = 500;

/** One cell's latency with durable threads on and off. */
export interface OnOff {
  on: BenchStats;
  off: BenchStats;
}

/** One cell, run back to back (the deferred save never comes) and with a pause that lets the save land between. */
export interface CellLatency {
  backToBack: OnOff;
  paused: OnOff;
  /** Back to back, on's p50 is within 10 % (or 0.5 ms) of off's: the target is no change. */
  unchangedAtP50: boolean;
}

export interface DurableRunLatency {
  /** THREADLAB_STATE_MAX_MB of the "on" sandbox, in MiB: the configured value, or the default when it is 0. */
  stateMaxMb: number;
  /** THREADLAB_STATE_SAVE_DELAY_MS as configured. */
  saveDelayMs: number;
  /** The pause before each paused run: longer than the save delay, so the save happens between runs. */
  pauseMs: number;
  print: CellLatency;
  pandasCell: CellLatency;
  /** Whether a saved state was on the host after the runs: yes with durable threads on, no with them off. */
  saved: { on: boolean; off: boolean };
}

const PRINT = 'print(1)';
const PANDAS_CELL =
  'import pandas as pd\ndf = pd.DataFrame({"a": range(1000), "b": range(1000)})\nprint(int((df.a * df.b).sum()))';

/**
 * What durable threads add to a normal run: `print(1)` and a small pandas cell in a warm thread, on a sandbox
 * with them on (THREADLAB_STATE_MAX_MB) and one with them off (0), runs alternating between the two. Back to
 * back, the save (deferred by THREADLAB_STATE_SAVE_DELAY_MS) never comes; with a longer pause it comes between runs.
 */
export async function benchDurableRuns(options: DurableBenchOptions): Promise<DurableRunLatency> {
  const configured = options.limits;
  const stateMaxBytes = configured.stateMaxBytes || loadConfig({}).sandbox.stateMaxBytes;
  const on = benchSandboxWith(options, { ...configured, poolSize: 0, poolMax: 0, stateMaxBytes }, 'on');
  const off = benchSandboxWith(options, { ...configured, poolSize: 0, poolMax: 0, stateMaxBytes: 0 }, 'off');
  const keys = { on: 'bench-durable-on', off: 'bench-durable-off' };
  const saveDelayMs = configured.stateSaveDelayMs;
  const pauseMs = saveDelayMs + SAVE_ALLOWANCE_MS;
  const pausedSamples = Math.max(3, Math.min(options.iterations, 12));
  try {
    for (const [sandbox, key] of [
      [on, keys.on],
      [off, keys.off],
    ] as const) {
      await runOk(sandbox, key, PANDAS_CELL);
      await runOk(sandbox, key, PRINT);
    }
    const pair = async (code: string, samples: number, before?: () => Promise<unknown>): Promise<OnOff> => {
      const times = { on: [] as number[], off: [] as number[] };
      for (let i = 0; i < samples; i++) {
        await before?.();
        // Which goes first alternates: the first run after a pause pays for waking the machine up.
        for (const side of i % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
          times[side].push(await timed(side === 'on' ? on : off, keys[side], code));
        }
      }
      return { on: stats(times.on), off: stats(times.off) };
    };
    const printBackToBack = await pair(PRINT, options.iterations);
    const pandasBackToBack = await pair(PANDAS_CELL, options.iterations);
    const paused = async (code: string) => pair(code, pausedSamples, () => sleep(pauseMs));
    const printPaused = await paused(PRINT);
    const pandasPaused = await paused(PANDAS_CELL);
    const savedOn = (await new StateStore(join(options.dataDir, threadHash(keys.on))).meta()) !== undefined;
    const savedOff = (await new StateStore(join(options.dataDir, threadHash(keys.off))).meta()) !== undefined;
    return {
      stateMaxMb: round(stateMaxBytes / MiB),
      saveDelayMs,
      pauseMs,
      print: cell(printBackToBack, printPaused),
      pandasCell: cell(pandasBackToBack, pandasPaused),
      saved: { on: savedOn, off: savedOff },
    };
  } finally {
    await Promise.allSettled([on.reset(keys.on), off.reset(keys.off)]);
    await Promise.allSettled([on.close(), off.close()]);
  }
}

async function timed(sandbox: DockerSandbox, key: string, code: string): Promise<number> {
  const start = performance.now();
  await runOk(sandbox, key, code);
  return performance.now() - start;
}

function cell(backToBack: OnOff, paused: OnOff): CellLatency {
  const { on, off } = backToBack;
  return { backToBack, paused, unchangedAtP50: on.p50Ms <= Math.max(off.p50Ms * 1.1, off.p50Ms + 0.5) };
}
