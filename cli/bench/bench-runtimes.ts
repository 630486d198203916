import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import type { EgressGateway } from '../../src/egress/gateway.js';
import type { Logger } from '../../src/logger.js';
import {
  DockerSandbox,
  registeredRuntimes,
  RUNSC_INSTALL_HINT,
  type RuntimeSetting,
  type SandboxRuntime,
  type SandboxLimits,
} from '../../app/sandbox-kit.js';

/**
 * The runtimes a bench measures out of those it wants: runc always, runsc when the engine has it registered; and
 * why runsc is left out when it was wanted and is not registered (the report says so rather than omit it silently).
 */
export async function benchRuntimes(
  docker: Pick<Docker, 'info'>,
  wanted: readonly SandboxRuntime[] = ['runc', 'runsc'],
): Promise<{ runtimes: SandboxRuntime[]; runscSkipped?: string }> {
  const registered = await registeredRuntimes(docker);
  const runtimes = wanted.filter((r) => r === 'runc' || registered.includes(r));
  return wanted.includes('runsc') && !runtimes.includes('runsc')
    ? { runtimes, runscSkipped: `runsc is not registered with the Docker engine (${RUNSC_INSTALL_HINT})` }
    : { runtimes };
}

/** What the sandboxes of a bench share: the engine, the image, the configured limits, a scratch data directory. */
export interface BenchSandboxBase {
  docker: Docker;
  image: string;
  limits: SandboxLimits;
  dataDir: string;
  logger: Logger;
}

/**
 * A one-container sandbox of a bench's own (a pool of one), its instance id `bench-<name>-<pid>-<random>` so its
 * containers are told apart from the bot's and any other bench's.
 */
export function oneContainerSandbox(
  base: BenchSandboxBase,
  options: { name: string; runtime: RuntimeSetting; egress?: EgressGateway },
): DockerSandbox {
  return new DockerSandbox({
    docker: base.docker,
    image: base.image,
    limits: { ...base.limits, poolSize: 1, poolMax: 1 },
    dataDir: base.dataDir,
    logger: base.logger,
    instanceId: `bench-${options.name}-${process.pid}-${randomBytes(3).toString('hex')}`,
    runtime: options.runtime,
    ...(options.egress ? { egress: options.egress } : {}),
  });
}
