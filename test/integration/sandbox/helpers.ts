import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import pino from 'pino';
import { loadConfig } from '../../../src/config/index.js';
import type { SandboxLimits } from '../../../sandbox/container-spec.js';
import { createDockerSandbox, type DockerSandbox } from '../../../sandbox/index.js';
import type { RuntimeSetting, SandboxRuntime } from '../../../sandbox/runtime.js';
import type { PoolObserver } from '../../../sandbox/warm-pool.js';
import type { EgressPort } from '../../../src/ports/egress.js';

export const docker = new Docker();
export const logger = pino({ level: process.env.THREADLAB_TEST_LOG ?? 'silent' });

export { sandboxImage } from '../../support/sandbox-image.js';
import { sandboxImage } from '../../support/sandbox-image.js';
import type { PlatformSetting } from '../../../sandbox/gvisor-platforms.js';

/**
 * The runtime this run of the suite tests: THREADLAB_TEST_SANDBOX_RUNTIME, which the vitest project sets
 * (`integration` runs runc, `integration-runsc` runs the runtime-sensitive files again under gVisor).
 */
export function testRuntime(): SandboxRuntime {
  return process.env.THREADLAB_TEST_SANDBOX_RUNTIME === 'runsc' ? 'runsc' : 'runc';
}

/** Small, fast limits for tests; override any of them. */
export function testLimits(overrides: Partial<SandboxLimits> = {}): SandboxLimits {
  return {
    ...loadConfig({}).sandbox,
    memoryMb: 512,
    pids: 64,
    dataMb: 64,
    tmpMb: 16,
    timeoutMs: 10_000,
    graceMs: 1500,
    outputBytes: 8 * 1024,
    maxFileBytes: 8 * 1024 * 1024,
    poolSize: 0,
    // A fixed pool unless a test asks for one that grows with demand.
    poolMax: 0,
    ...overrides,
  };
}

export interface TestSandbox {
  sandbox: DockerSandbox;
  dataDir: string;
  instanceId: string;
  close: () => Promise<void>;
}

/**
 * A sandbox with a unique instance id and a temporary data dir, removed by `close()`; `extra.dataDir` reuses
 * another's (a restart on the same data dir), and `extra.demandFile` gives its pool a memory.
 */
export async function makeSandbox(
  name: string,
  limits: Partial<SandboxLimits> = {},
  image?: string,
  extra: {
    orphanSweepMs?: number;
    runtime?: RuntimeSetting;
    egress?: EgressPort;
    observer?: PoolObserver;
    dataDir?: string;
    demandFile?: string;
    platform?: PlatformSetting;
    readyTimeoutMs?: number;
    docker?: Docker;
  } = {},
): Promise<TestSandbox> {
  const dataDir = extra.dataDir ?? mkdtempSync(join(tmpdir(), `threadlab-sbx-${name}-`));
  const instanceId = `test-${name}-${process.pid}-${Date.now().toString(36)}`;
  const sandbox = await createDockerSandbox({
    docker,
    image: image ?? (await sandboxImage()),
    limits: testLimits(limits),
    dataDir,
    logger,
    instanceId,
    runtime: testRuntime(),
    ...extra,
  });
  return {
    sandbox,
    dataDir,
    instanceId,
    close: async () => {
      await sandbox.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Containers of one instance still present on the engine. */
export async function containersOf(instanceId: string): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [`dev.threadlab.instance=${instanceId}`] } });
}
