import type Docker from 'dockerode';
import { registeredRuntimes, RUNSC_INSTALL_HINT, type SandboxRuntime } from '../../sandbox/runtime.js';

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
