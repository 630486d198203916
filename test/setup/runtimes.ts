import Docker from 'dockerode';
import { chooseRuntime, registeredRuntimes } from '../../sandbox/runtime.js';
import { platformRuntimes } from '../../sandbox/gvisor-platforms.js';
import { DEFAULT_PLATFORM_CACHE, platformCacheKey, readPlatformCache } from '../../sandbox/platform-cache.js';

/** Whether the sandbox suite can run a second time under gVisor, and if not, why. */
export interface RunscAvailability {
  registered: boolean;
  /** Why the runsc run is skipped; set when not registered. */
  reason?: string;
  /**
   * Which gVisor platform the run uses and why, when the engine has a runtime per platform: the sandboxes choose it
   * themselves (the fastest that passed the probe, ptrace the fallback), so it is read here from the probe's cache,
   * never probed (a config load must not wait on a platform that hangs).
   */
  platform?: string;
}

/**
 * Asks the Docker engine (within 3 s) whether gVisor's runsc is registered, for vitest.config.ts to
 * decide whether the `integration-runsc` project runs the sandbox suite or reports it skipped.
 * THREADLAB_TEST_RUNSC=0 skips it on purpose.
 */
export async function runscAvailability(env: NodeJS.ProcessEnv = process.env): Promise<RunscAvailability> {
  if (env.THREADLAB_TEST_RUNSC === '0') return { registered: false, reason: 'THREADLAB_TEST_RUNSC=0' };
  const docker = new Docker({ timeout: 3000 });
  try {
    const runtimes = await registeredRuntimes(docker);
    if (runtimes.includes('runsc')) return { registered: true, platform: await platformInUse(docker, runtimes) };
    return {
      registered: false,
      reason: `gVisor (runsc) is not registered with the Docker engine (it has: ${runtimes.join(', ')}); run \`sudo bash scripts/ensure-docker.sh\` to install and register it`,
    };
  } catch (err) {
    return { registered: false, reason: `the Docker engine did not answer (${(err as Error).message})` };
  }
}

/** The platform integration-runsc's sandboxes will choose, from the probe's cache; see RunscAvailability.platform. */
async function platformInUse(docker: Docker, runtimes: string[]): Promise<string> {
  const platforms = platformRuntimes(runtimes).map((p) => p.platform);
  if (platforms.length === 0) return 'runsc as registered (no runtime per platform)';
  const results = await readPlatformCache(DEFAULT_PLATFORM_CACHE, await platformCacheKey(docker, platforms));
  if (!results) return 'not probed yet: the first gVisor sandbox probes each platform (bounded) and caches the result';
  const choice = chooseRuntime('runsc', runtimes, { ranking: { results, source: 'cached' } });
  return `${choice.engineRuntime}: ${choice.reason}`;
}
