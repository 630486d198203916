import Docker from 'dockerode';
import { ensureSandboxImage } from '../../sandbox/image-builder.js';
import { startPrivateRedis, type PrivateRedis } from '../support/redis-server.js';
import { ensureCompiledCli } from './compiled-cli.js';

let redis: PrivateRedis | undefined;

/**
 * Runs once per integration/e2e project: builds the sandbox image when its definition changed, builds
 * dist/ when a source changed (the CLI processes the tests spawn run compiled code: no per-spawn
 * transpiling), and starts a private Redis on a free loopback port. Tests read
 * THREADLAB_TEST_SANDBOX_IMAGE, THREADLAB_TEST_CLI_BIN and THREADLAB_TEST_REDIS_URL; an image or a
 * Redis given beforehand is used as it is (an image someone else built, a Redis already running).
 */
export async function setup(): Promise<void> {
  process.env.THREADLAB_TEST_CLI_BIN = await ensureCompiledCli((line) => process.stderr.write(`[dist] ${line}\n`));
  if (!process.env.THREADLAB_TEST_SANDBOX_IMAGE) {
    const docker = new Docker();
    const { image, built } = await ensureSandboxImage({
      docker,
      onProgress: (line) => process.stderr.write(`[sandbox image] ${line}\n`),
    });
    if (built) process.stderr.write(`[sandbox image] ready: ${image}\n`);
    process.env.THREADLAB_TEST_SANDBOX_IMAGE = image;
  }
  if (!process.env.THREADLAB_TEST_REDIS_URL) {
    redis = await startPrivateRedis();
    process.env.THREADLAB_TEST_REDIS_URL = redis.url;
  }
}

export async function teardown(): Promise<void> {
  await redis?.stop();
}
