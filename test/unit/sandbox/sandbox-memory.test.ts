import { describe, expect, it } from 'vitest';
import { engineBytes, privateBytes } from '../../../cli/bench/sandbox-memory.js';

const MiB = 1024 * 1024;

// memory_stats of two idle sandboxes after a typical turn, read from `docker stats` on a cgroup v1 host (2026-11-27).
const RUNC = {
  usage: 81_055_744,
  stats: { cache: 45_056, total_active_file: 8192, total_inactive_file: 8192, total_inactive_anon: 77_635_584 },
};
// Under gVisor the sandbox's memory file (shared memory) is charged as cache and mapped file, not as file LRU pages.
const RUNSC = {
  usage: 111_990_784,
  stats: {
    cache: 83_333_120,
    mapped_file: 83_062_784,
    total_active_file: 61_440,
    total_inactive_file: 0,
    total_active_anon: 18_165_760,
    total_inactive_anon: 83_922_944,
  },
};

describe('idle sandbox memory', () => {
  it("keeps gVisor's memory file in the sandbox's figure, which usage minus cache left out", () => {
    expect(privateBytes(RUNSC) / MiB).toBeCloseTo(106.7, 1);
    expect((RUNSC.usage - RUNSC.stats.cache) / MiB).toBeLessThan(28);
  });

  it('leaves out only the file cache under runc', () => {
    expect(privateBytes(RUNC)).toBe(RUNC.usage - 16_384);
  });

  it('reads cgroup v2, where shared memory is part of file', () => {
    const v2 = { usage: 100 * MiB, stats: { file: 70 * MiB, shmem: 60 * MiB, inactive_file: 5 * MiB, anon: 20 * MiB } };
    expect(privateBytes(v2)).toBe(90 * MiB);
    expect(engineBytes(v2)).toBe(95 * MiB);
  });

  it("computes the engine's figure as docker stats does, and never goes below zero", () => {
    expect(engineBytes(RUNC)).toBe(RUNC.usage - 8192);
    expect(privateBytes({ usage: 10, stats: { total_inactive_file: 50 } })).toBe(0);
    expect(privateBytes({})).toBe(0);
  });
});
