import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { createLogger } from '../../../src/logger.js';
import { createSandbox } from '../../../app/index.js';
import { createMetrics } from '../../../src/ops/metrics.js';
import type { DockerSandbox } from '../../../sandbox/index.js';

const dataDir = mkdtempSync(join(tmpdir(), 'threadlab-metrics-'));
const logger = createLogger({ destination: new Writable({ write: (_c, _e, done) => done() }) });
let sandbox: DockerSandbox | undefined;

afterAll(async () => {
  await sandbox?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('sandbox pool metrics (real Docker)', () => {
  it('counts a warm-pool hit and a cold miss, the pool size, and idle kernels made lean', async () => {
    const config = loadConfig({
      THREADLAB_SANDBOX_IMAGE: process.env.THREADLAB_TEST_SANDBOX_IMAGE!,
      THREADLAB_SANDBOX_POOL_SIZE: '1',
      THREADLAB_DATA_DIR: dataDir,
      THREADLAB_SANDBOX_KERNEL_IDLE_MS: '1000',
      THREADLAB_STATE_SAVE_DELAY_MS: '0',
    });
    const metrics = createMetrics({ defaultMetrics: false });
    sandbox = (await createSandbox(config, logger, { metrics })) as DockerSandbox;
    await sandbox.pool.whenFull();
    expect(await metrics.registry.getSingleMetricAsString('threadlab_sandbox_pool_size')).toMatch(
      /pool_size\{[^}]*\} 1$/m,
    );

    expect((await sandbox.run('metrics-a', { language: 'python', code: 'print(1)' })).stdout).toBe('1\n');
    // The pool refills one container at a time; a second session started at once finds it empty.
    expect((await sandbox.run('metrics-b', { language: 'python', code: 'print(2)' })).stdout).toBe('2\n');
    const requests = await metrics.registry.getSingleMetricAsString('threadlab_sandbox_pool_requests_total');
    expect(requests).toMatch(/result="hit"[^}]*\} 1$/m);
    expect(requests).toMatch(/result="miss"[^}]*\} 1$/m);
    // Both threads sit idle with their variables saved: their kernels go lean, and each is counted.
    const deadline = Date.now() + 30_000;
    let lean = '';
    while (Date.now() < deadline) {
      lean = await metrics.registry.getSingleMetricAsString('threadlab_sandbox_kernels_made_lean_total');
      if (/where="thread"[^}]*\} 2$/m.test(lean)) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(lean).toMatch(/where="thread"[^}]*\} 2$/m);
  });
});
