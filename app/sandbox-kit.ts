/**
 * The sandbox package as the CLI may use it (its benches build sandboxes of their own, `doctor` and
 * `sandbox build` check and build the image): the CLI asks the composition root, never sandbox/ itself.
 */
export { DockerSandbox, type DockerSandboxOptions } from '../sandbox/docker-sandbox.js';
export { LABELS, POOL_SESSION, type SandboxLimits } from '../sandbox/container-spec.js';
export { createDocker } from '../sandbox/docker-client.js';
export { ensureSandboxImage, sandboxImageTag, VERSION_LABEL, type BaseStrategy } from '../sandbox/image-builder.js';
export {
  registeredRuntimes,
  resolveRuntime,
  RUNSC_INSTALL_HINT,
  type RankPlatforms,
  type RuntimeSetting,
  type SandboxRuntime,
} from '../sandbox/runtime.js';
export { platformRuntimes, type GvisorPlatform } from '../sandbox/gvisor-platforms.js';
export { cachedRanking } from '../sandbox/platform-cache.js';
export { STATE_DIR_PARTS, StateStore } from '../sandbox/session-state.js';
export { threadFilesDir } from '../sandbox/mirror-retention.js';
export { poolDemandFile } from '../sandbox/pool-demand-file.js';
