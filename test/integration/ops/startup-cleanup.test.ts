import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { createLogger } from '../../../src/logger.js';
import { buildBot } from '../../../app/index.js';
import type { BotDeps } from '../../../src/core/bot.js';
import { LABELS } from '../../../sandbox/container-spec.js';

const dataDir = mkdtempSync(join(tmpdir(), 'threadlab-startfail-'));
const logger = createLogger({ destination: new Writable({ write: (_c, _e, done) => done() }) });
const docker = new Docker();
const ours = { label: [`${LABELS.sandbox}=1`, `${LABELS.pid}=${process.pid}`] };

afterAll(async () => {
  for (const c of await docker.listContainers({ all: true, filters: ours }))
    await docker.getContainer(c.Id).remove({ force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a start-up that fails after the sandbox started (real Docker)', () => {
  it('removes the warm containers before the error reaches the caller', async () => {
    const config = loadConfig({
      THREADLAB_SANDBOX_IMAGE: process.env.THREADLAB_TEST_SANDBOX_IMAGE!,
      THREADLAB_SANDBOX_POOL_SIZE: '1',
      THREADLAB_DATA_DIR: dataDir,
    });
    // Any dependency built after the sandbox may fail; the queue's construction stands for them all.
    const overrides = {
      get queue(): BotDeps['queue'] {
        throw new Error('queue could not be created');
      },
    } as Partial<BotDeps>;
    await expect(buildBot(config, logger, { overrides })).rejects.toThrow('queue could not be created');
    // Without the clean-up the pool's container appears and stays; give it time to show.
    await new Promise((r) => setTimeout(r, 3000));
    expect(await docker.listContainers({ all: true, filters: ours })).toEqual([]);
  });
});
