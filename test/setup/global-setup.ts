import Docker from 'dockerode';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureSandboxImage, sandboxImageTag } from '../../sandbox/image-builder.js';
import { IMAGE_STATUS_ENV } from '../support/sandbox-image.js';
import { startPrivateRedis, type PrivateRedis } from '../support/redis-server.js';
import { ensureCompiledCli } from './compiled-cli.js';

let redis: PrivateRedis | undefined;
let building: Promise<void> | undefined;

/**
 * Runs once per integration/e2e project: starts building the sandbox image when its definition changed, builds
 * dist/ when a source changed (the CLI processes the tests spawn run compiled code: no per-spawn
 * transpiling), and starts a private Redis on a free loopback port. Tests read
 * THREADLAB_TEST_SANDBOX_IMAGE, THREADLAB_TEST_CLI_BIN and THREADLAB_TEST_REDIS_URL; an image or a
 * Redis given beforehand is used as it is (an image someone else built, a Redis already running).
 */
export async function setup(): Promise<void> {
  process.env.THREADLAB_TEST_CLI_BIN = await ensureCompiledCli((line) => process.stderr.write(`[dist] ${line}\n`));
  if (!process.env.THREADLAB_TEST_SANDBOX_IMAGE) {
    // The tag is known before the image exists: the build goes on while the unit tests run, and each file that
    // needs Docker waits for it (test/setup/sandbox-image-ready.ts reads the status file written here).
    const image = sandboxImageTag();
    const status = join(tmpdir(), `threadlab-test-image-${process.pid}.json`);
    rmSync(status, { force: true });
    process.env.THREADLAB_TEST_SANDBOX_IMAGE = image;
    process.env[IMAGE_STATUS_ENV] = status;
    building = ensureSandboxImage({
      docker: new Docker(),
      onProgress: (line) => process.stderr.write(`[sandbox image] ${line}\n`),
    }).then(
      ({ built }) => {
        if (built) process.stderr.write(`[sandbox image] ready: ${image}\n`);
        writeFileSync(status, JSON.stringify({ ok: true }));
      },
      (err: unknown) => {
        process.stderr.write(`[sandbox image] failed: ${(err as Error).message}\n`);
        writeFileSync(status, JSON.stringify({ error: (err as Error).message }));
      },
    );
  }
  if (!process.env.THREADLAB_TEST_REDIS_URL) {
    redis = await startPrivateRedis();
    process.env.THREADLAB_TEST_REDIS_URL = redis.url;
  }
}

export async function teardown(): Promise<void> {
  await building; // a run that ended early leaves no build behind
  await redis?.stop();
}
