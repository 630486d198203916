import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import type { Logger } from '../src/logger.js';
import type { SandboxLimits } from './container-spec.js';
import { launchContainer } from './launch-container.js';
import { platformRuntimeName, type GvisorPlatform } from './gvisor-platforms.js';
import type { PlatformRanking } from './runtime.js';

/** How long one platform's probe container may take to say ready before the platform counts as failed. */
export const DEFAULT_PROBE_TIMEOUT_MS = 20_000;

/** One probe's outcome: the platform's runtime started the real sandbox image and its runner said ready, or not. */
export type ProbeResult = PlatformRanking['results'][number] & { runtime: string };

export interface ProbeOptions {
  docker: Docker;
  /** The real sandbox image: the probe starts exactly what a thread gets. */
  image: string;
  limits: SandboxLimits;
  logger: Logger;
  /** The bound on one probe, start and ready together. @defaultValue DEFAULT_PROBE_TIMEOUT_MS (20 s; ptrace took 0.7 s here) */
  timeoutMs?: number;
}

/**
 * Starts one sandbox container of the image under a runtime (a platform's `runsc-<platform>`, or any registered
 * name, such as a stand-in that never becomes ready) and times it to the runner's ready frame. Within the bound
 * it is removed at once; past it, launchContainer ends the runtime's processes and removes the container, so a
 * platform that hangs costs the bound, never more. Never throws: a failure is the result.
 */
export async function probeRuntime(
  options: ProbeOptions & { runtime: string; platform: GvisorPlatform },
): Promise<ProbeResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const started = performance.now();
  const base = { platform: options.platform, runtime: options.runtime };
  try {
    const live = await launchContainer({
      docker: options.docker,
      image: options.image,
      limits: options.limits,
      instanceId: `platform-probe-${process.pid}-${randomBytes(3).toString('hex')}`,
      session: `probe-${options.platform}`,
      logger: options.logger,
      runtime: 'runsc',
      engineRuntime: options.runtime,
      readyTimeoutMs: timeoutMs,
    });
    const readyMs = performance.now() - started;
    await live.remove().catch(() => undefined);
    return { ...base, ok: true, readyMs: Math.round(readyMs) };
  } catch (err) {
    const error = (err as Error).message.slice(0, 300);
    options.logger.warn({ runtime: options.runtime, err }, `gVisor platform ${options.platform} failed its probe`);
    return { ...base, ok: false, error };
  }
}

/**
 * Probes each platform in turn (one at a time, so that they are timed alike), under its runtime `runsc-<platform>`
 * unless a target names another.
 */
export async function probePlatforms(
  options: ProbeOptions,
  targets: readonly (GvisorPlatform | { platform: GvisorPlatform; runtime: string })[],
): Promise<ProbeResult[]> {
  const results: ProbeResult[] = [];
  for (const target of targets) {
    const { platform, runtime } =
      typeof target === 'string' ? { platform: target, runtime: platformRuntimeName(target) } : target;
    results.push(await probeRuntime({ ...options, platform, runtime }));
  }
  return results;
}
