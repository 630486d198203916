import { DockerSandbox, type DockerSandboxOptions } from './docker-sandbox.js';

export { DockerSandbox, type DockerSandboxOptions } from './docker-sandbox.js';
export { removeOrphans, type RemoveOrphansOptions } from './orphans.js';
export { buildContainerSpec, LABELS, type SandboxLimits } from './container-spec.js';
export { buildSeccompProfile, type SeccompProfile } from './seccomp.js';
export type { Sandbox, RunRequest } from '../src/ports/sandbox.js';
export type { ExecutionResult, SandboxEnvironment, SandboxFile, FilePreview } from '../src/domain/execution.js';

/**
 * Creates the Docker sandbox and starts it: checks the image (sandbox_image_missing), removes orphaned
 * containers of crashed instances, starts the idle reaper and begins filling the warm pool.
 */
export async function createDockerSandbox(options: DockerSandboxOptions): Promise<DockerSandbox> {
  const sandbox = new DockerSandbox(options);
  await sandbox.start();
  return sandbox;
}
