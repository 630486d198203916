import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchThreads } from '../../../cli/bench/threads-bench.js';
import { docker, logger, sandboxImage, testLimits } from './helpers.js';

describe('threadlab bench threads', () => {
  it('drives threads through the sandbox, lets their containers go once saved and idle, and brings some back with their variables', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'threadlab-threads-'));
    const lines: string[] = [];
    try {
      const [row] = await benchThreads({
        docker,
        image: await sandboxImage(),
        limits: testLimits({ poolSize: 1, poolMax: 2, stateSaveDelayMs: 100, maxSessions: 32 }),
        dataDir,
        logger,
        out: (line) => lines.push(line),
        threads: 5,
        revisitEvery: 2,
        concurrency: 2,
        idleTtlMs: 1500,
        runtimes: ['runc'],
      });
      expect(row).toMatchObject({ runtime: 'runc', threads: 5, restored: 3 });
      expect(row!.backHits).toBeGreaterThanOrEqual(1); // they come back to a full pool (of 1..2)
      expect(row!.fresh.samples).toBe(5);
      expect(row!.back.samples).toBe(3);
      expect(row!.peakContainers).toBeGreaterThan(0);
      expect(row!.peakContainers).toBeLessThanOrEqual(5 + 2);
      expect(row!.peakMemoryDropMb).toBeGreaterThanOrEqual(0);
      expect(lines.join('\n')).toMatch(/runc: memory stayed within \d+ containers/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
