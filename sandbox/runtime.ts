import type Docker from 'dockerode';
import { ThreadlabError } from '../src/domain/errors.js';

/** What THREADLAB_SANDBOX_RUNTIME asks for: gVisor when the engine has it (auto), or one runtime. */
export type RuntimeSetting = 'auto' | 'runc' | 'runsc';

/** The OCI runtime a sandbox container runs under: runc (namespaces on the host kernel) or gVisor. */
export type SandboxRuntime = 'runc' | 'runsc';

/** The runtime sandboxes get, and why; `fallback` marks auto settling for runc. */
export interface RuntimeChoice {
  runtime: SandboxRuntime;
  reason: string;
  fallback: boolean;
}

/** How to get gVisor registered, said wherever runsc is missing. */
export const RUNSC_INSTALL_HINT =
  'run `sudo bash scripts/ensure-docker.sh` (it installs Debian\'s runsc package and registers it in /etc/docker/daemon.json "runtimes" as "runsc"), ' +
  'or install gVisor (https://gvisor.dev/docs/user_guide/install/) and register it with the engine';

/** The names of the OCI runtimes the Docker engine has registered (`docker info` → Runtimes). */
export async function registeredRuntimes(docker: Pick<Docker, 'info'>): Promise<string[]> {
  const info = (await docker.info()) as { Runtimes?: unknown };
  const runtimes = info.Runtimes;
  return runtimes && typeof runtimes === 'object' ? Object.keys(runtimes).sort() : [];
}

/**
 * Decides the runtime from the setting and the engine's runtimes. `runsc` asked for but not registered
 * is a start-up error (sandbox_runtime_missing) that says how to install it; auto without it is runc.
 */
export function chooseRuntime(setting: RuntimeSetting, registered: readonly string[]): RuntimeChoice {
  const hasRunsc = registered.includes('runsc');
  if (setting === 'runc')
    return { runtime: 'runc', reason: 'THREADLAB_SANDBOX_RUNTIME=runc (gVisor not asked for)', fallback: false };
  if (setting === 'runsc') {
    if (hasRunsc) return { runtime: 'runsc', reason: 'THREADLAB_SANDBOX_RUNTIME=runsc', fallback: false };
    throw new ThreadlabError(
      'sandbox_runtime_missing',
      `THREADLAB_SANDBOX_RUNTIME=runsc, but the Docker engine has no runtime named runsc (it has: ${registered.join(', ') || 'none'}). ` +
        `To use gVisor, ${RUNSC_INSTALL_HINT}; or set THREADLAB_SANDBOX_RUNTIME=auto to fall back to runc.`,
      { details: { registered } },
    );
  }
  return hasRunsc
    ? { runtime: 'runsc', reason: 'auto: the Docker engine has gVisor (runsc) registered', fallback: false }
    : {
        runtime: 'runc',
        reason:
          'auto: gVisor (runsc) is not registered with the Docker engine, so sandboxes use runc (one wall: namespaces, seccomp, no network)',
        fallback: true,
      };
}

/** Asks the engine which runtimes it has and decides; see chooseRuntime. */
export async function resolveRuntime(docker: Pick<Docker, 'info'>, setting: RuntimeSetting): Promise<RuntimeChoice> {
  if (setting === 'runc') return chooseRuntime(setting, []);
  return chooseRuntime(setting, await registeredRuntimes(docker));
}
