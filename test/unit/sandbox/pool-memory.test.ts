import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { poolDemandFile } from '../../../sandbox/pool-demand-file.js';
import { PoolMemory } from '../../../sandbox/pool-memory.js';
import { recordingLogger } from '../../support/recording-logger.js';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'threadlab-pool-memory-'));
});
afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

/** A memory over a pool whose demand is `demand`, counting its saves (each save asks for the demand once). */
function memoryOf(demand: number[], saveDelayMs = 30) {
  const log = recordingLogger();
  const counts = { saves: 0 };
  const remembered: number[] = [];
  const pool = {
    maxSize: 2,
    target: 2,
    learnedDemand: () => {
      counts.saves += 1;
      return demand;
    },
    remember: (starts: readonly number[]) => remembered.push(...starts),
  };
  const memory = new PoolMemory({ path: poolDemandFile(dataDir), pool, logger: log.logger, saveDelayMs });
  return { memory, counts, log, remembered };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PoolMemory', () => {
  it('saves a little after demand changes, once for many changes, and a restart reads it back', async () => {
    const now = Date.now();
    const demand = [now - 3000, now - 2000];
    const { memory, counts } = memoryOf(demand);
    for (let i = 0; i < 10; i += 1) memory.changed();
    expect(counts.saves).toBe(0);
    await sleep(100);
    expect(counts.saves).toBe(1);
    demand.push(now - 1000);
    memory.changed();
    await sleep(100);
    expect(counts.saves).toBe(2);
    const restarted = memoryOf([]).memory;
    expect(await restarted.load(10, now)).toEqual([now - 3000, now - 2000, now - 1000]);
    await memory.close();
    expect(counts.saves).toBe(2); // nothing changed since the last save
  });

  it('close saves a change at once, and nothing after it', async () => {
    const now = Date.now();
    const demand = [now - 1000];
    const { memory, counts } = memoryOf(demand, 60_000);
    memory.changed();
    await memory.close();
    expect(counts.saves).toBe(1);
    expect(await memoryOf([]).memory.load(10, now)).toEqual([now - 1000]);
    demand.push(now);
    memory.changed();
    await sleep(10);
    expect(counts.saves).toBe(1);
  });

  it('a process whose demand never changed writes nothing (a peer’s record stays)', async () => {
    const { memory, counts } = memoryOf([]);
    await memory.close();
    expect(counts.saves).toBe(0);
    expect(existsSync(poolDemandFile(dataDir))).toBe(false);
  });

  it('a failed save is logged, never thrown, and tried again at close', async () => {
    const now = Date.now();
    writeFileSync(join(dataDir, 'sandbox-pool'), 'a file where the directory goes');
    const { memory, counts, log } = memoryOf([now - 1000]);
    memory.changed();
    await sleep(100);
    expect(counts.saves).toBe(1);
    expect(log.lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([
      expect.stringContaining('could not save'),
    ]);
    rmSync(join(dataDir, 'sandbox-pool'));
    mkdirSync(join(dataDir, 'sandbox-pool'));
    await memory.close();
    expect(counts.saves).toBe(2);
    expect(await memoryOf([]).memory.load(10, now)).toEqual([now - 1000]);
  });

  it('at load, removes temporary files a crash left behind, not those of a write in flight', async () => {
    const dir = join(dataDir, 'sandbox-pool');
    mkdirSync(dir);
    writeFileSync(join(dir, 'demand.json.123-dead.tmp'), '{"half":');
    const old = new Date(Date.now() - 10 * 60_000);
    utimesSync(join(dir, 'demand.json.123-dead.tmp'), old, old);
    writeFileSync(join(dir, 'demand.json.456-busy.tmp'), '{}');
    writeFileSync(join(dir, 'other.tmp'), 'not ours');
    utimesSync(join(dir, 'other.tmp'), old, old);
    expect(await memoryOf([]).memory.load(10)).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(['demand.json.456-busy.tmp', 'other.tmp']);
  });
});

describe('PoolMemory.restore', () => {
  it('gives the pool the saved starts, at most its maximum, and says so', async () => {
    const now = Date.now();
    const { memory } = memoryOf([now - 3000, now - 2000, now - 1000]);
    memory.changed();
    await memory.close();
    const restarted = memoryOf([]);
    await restarted.memory.restore();
    expect(restarted.remembered).toEqual([now - 2000, now - 1000]);
  });
});
