import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { poolDemandFile } from '../../../sandbox/pool-demand-file.js';
import { containersOf, makeSandbox, type TestSandbox } from './helpers.js';

const root = mkdtempSync(join(tmpdir(), 'threadlab-pool-memory-'));
const demandFile = poolDemandFile(root);
const limits = { poolSize: 1, poolMax: 3, maxSessions: 8 };
const open: TestSandbox[] = [];
afterAll(async () => {
  for (const t of open) await t.sandbox.close().catch(() => undefined);
  for (const t of open) rmSync(t.dataDir, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
});

async function sandboxOn(name: string, extra: { dataDir?: string; demandFile?: string }): Promise<TestSandbox> {
  const t = await makeSandbox(name, limits, undefined, extra);
  open.push(t);
  return t;
}

const pooledOf = async (instanceId: string) =>
  (await containersOf(instanceId)).filter((c) => c.Labels['dev.threadlab.session'] === 'pool').length;

describe('a warm pool that remembers its demand across a restart', () => {
  it('a sandbox restarted on the same data dir refills to the learned size, primed with the data stack', async () => {
    const first = await sandboxOn('pool-memory-a', { demandFile });
    await first.sandbox.pool.whenFull();
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) => first.sandbox.run(`burst-${i}`, { language: 'python', code: 'print(1)' })),
    );
    expect(results.every((r) => r.status === 'ok')).toBe(true);
    await first.sandbox.close();
    // Four sessions began; the file keeps the newest three (THREADLAB_SANDBOX_POOL_MAX).
    const saved = JSON.parse(readFileSync(demandFile, 'utf8')) as { sessionStartsMs: number[] };
    expect(saved.sessionStartsMs).toHaveLength(3);

    const restarted = await sandboxOn('pool-memory-b', { demandFile, dataDir: first.dataDir });
    // Straight after start, before any session: the target is what the last run learned.
    expect(restarted.sandbox.pool.target).toBe(3);
    await restarted.sandbox.pool.whenFull();
    expect(restarted.sandbox.pool.available).toBe(3);
    expect(await pooledOf(restarted.instanceId)).toBe(3);
    // Its containers were primed, as the pool does while there is demand: a new thread finds pandas loaded.
    const probe = await restarted.sandbox.run('after-restart', {
      language: 'python',
      code: "import sys\nprint('pandas' in sys.modules)",
    });
    expect(probe.stdout.trim()).toBe('True');

    // The same start without the memory begins at the pool's size, unprimed.
    const cold = await sandboxOn('pool-memory-c', {});
    expect(cold.sandbox.pool.target).toBe(1);
    await cold.sandbox.pool.whenFull();
    const coldProbe = await cold.sandbox.run('cold', {
      language: 'python',
      code: "import sys\nprint('pandas' in sys.modules)",
    });
    expect(coldProbe.stdout.trim()).toBe('False');
  });
});
