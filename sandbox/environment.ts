import type { EgressDescription, SandboxEnvironment } from '../src/domain/execution.js';
import type { SandboxLimits } from './container-spec.js';
import type { ReadyFrame } from './runner-protocol.js';

/** What the image offers (from a runner's ready frame) and the limits it runs under. */
export function toSandboxEnvironment(
  ready: ReadyFrame,
  limits: SandboxLimits,
  network: EgressDescription | false = false,
): SandboxEnvironment {
  return {
    imageVersion: ready.imageVersion ?? 'unknown',
    python: ready.python,
    packages: ready.packages,
    ...(ready.languages ? { languages: ready.languages } : {}),
    limits: {
      memoryMb: limits.memoryMb,
      cpus: limits.cpus,
      timeoutMs: limits.timeoutMs,
      dataMb: limits.dataMb,
      maxFileMb: Math.round(limits.maxFileBytes / (1024 * 1024)),
      network,
      durableVariables: limits.stateMaxBytes > 0,
    },
  };
}
