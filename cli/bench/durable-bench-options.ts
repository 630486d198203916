import type Docker from 'dockerode';
import type { Logger } from '../../src/logger.js';
import { DockerSandbox, type SandboxLimits, type SandboxRuntime, type GvisorPlatform } from '../../app/sandbox-kit.js';
import type { ExecutionResult } from '../../src/domain/execution.js';

/** What the durable-thread measurements of `threadlab bench sandbox` share. */
export interface DurableBenchOptions {
  docker: Docker;
  image: string;
  /** The configured limits; each measurement says what it changes. */
  limits: SandboxLimits;
  dataDir: string;
  logger: Logger;
  runtime: SandboxRuntime;
  /** gVisor's platform under runsc, where the engine has a runtime per platform. @defaultValue the sandbox's choice */
  platform?: GvisorPlatform;
  /** Prefix of the instance ids of the sandboxes the measurements start. */
  instanceId: string;
  /** Samples of the fast measurements (runs back to back). */
  iterations: number;
  /** Samples of the slow ones (saves, restores, runs with a pause between). */
  slow: number;
}

/** A sandbox of the bench's with these limits, labelled with its own instance id. */
export function benchSandboxWith(options: DurableBenchOptions, limits: SandboxLimits, suffix: string): DockerSandbox {
  return new DockerSandbox({
    docker: options.docker,
    image: options.image,
    limits,
    dataDir: options.dataDir,
    logger: options.logger,
    instanceId: `${options.instanceId}-${suffix}`,
    runtime: options.runtime,
    ...(options.platform ? { platform: options.platform } : {}),
  });
}

/** Runs Python in the thread and fails the bench when the code did not succeed: a figure of a failed run is no figure. */
export async function runOk(sandbox: DockerSandbox, key: string, code: string): Promise<ExecutionResult> {
  const result = await sandbox.run(key, { language: 'python', code });
  if (result.status !== 'ok') {
    throw new Error(`bench run failed in ${key}: ${result.error?.value ?? result.status} ${result.stderr.slice(-500)}`);
  }
  return result;
}
