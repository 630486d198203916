import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchBurst } from '../../../cli/bench/burst-bench.js';
import { docker, logger, sandboxImage } from './helpers.js';

describe('threadlab bench burst', () => {
  it('starts threads at once through the web chat to their answers; the pool that grew serves the next burst, and after a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'threadlab-burst-'));
    const lines: string[] = [];
    try {
      const rows = await benchBurst({
        docker,
        image: await sandboxImage(),
        env: { THREADLAB_SANDBOX_POOL_SIZE: '1', THREADLAB_SANDBOX_POOL_MAX: '3' },
        threads: 3,
        dataDir,
        logger,
        out: (line) => lines.push(line),
        runtimes: ['runc'],
      });
      expect(rows.map((r) => `${r.pool} ${r.burst}`)).toEqual([
        'fixed first',
        'fixed next',
        'grows first',
        'grows next',
        'grows restart',
      ]);
      const grown = rows.find((r) => r.pool === 'grows' && r.burst === 'next')!;
      expect(grown).toMatchObject({ readyBefore: 3, hits: 3 });
      // The restarted bot (same data dir) refilled to what its pool had learned before serving the burst.
      expect(rows.find((r) => r.burst === 'restart')).toMatchObject({ readyBefore: 3, hits: 3 });
      expect(rows.find((r) => r.pool === 'grows' && r.burst === 'first')).toMatchObject({ readyBefore: 1, hits: 1 });
      expect(rows.find((r) => r.pool === 'fixed' && r.burst === 'next')).toMatchObject({ readyBefore: 1, hits: 1 });
      for (const r of rows) expect(r.p95Ms).toBeGreaterThan(0);
      expect(lines.join('\n')).toMatch(/runc: the pool that grew answers the next burst at p50 \d+ ms/);
      expect(lines.join('\n')).toMatch(
        /runc: the first burst after a restart that remembered demand \(pool refilled to 3 in [\d.]+ s\) at p50 \d+ ms/,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
