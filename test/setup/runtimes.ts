import Docker from 'dockerode';
import { registeredRuntimes } from '../../sandbox/runtime.js';

/** Whether the sandbox suite can run a second time under gVisor, and if not, why. */
export interface RunscAvailability {
  registered: boolean;
  /** Why the runsc run is skipped; set when not registered. */
  reason?: string;
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
    if (runtimes.includes('runsc')) return { registered: true };
    return {
      registered: false,
      reason: `gVisor (runsc) is not registered with the Docker engine (it has: ${runtimes.join(', ')}); run \`sudo bash scripts/ensure-docker.sh\` to install and register it`,
    };
  } catch (err) {
    return { registered: false, reason: `the Docker engine did not answer (${(err as Error).message})` };
  }
}
