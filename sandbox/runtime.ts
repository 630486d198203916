import type Docker from 'dockerode';
import { ThreadlabError } from '../src/domain/errors.js';
import {
  FALLBACK_PLATFORM,
  platformRuntimeName,
  platformRuntimes,
  type GvisorPlatform,
  type PlatformSetting,
} from './gvisor-platforms.js';

/** What THREADLAB_SANDBOX_RUNTIME asks for: gVisor when the engine has it (auto), or one runtime. */
export type RuntimeSetting = 'auto' | 'runc' | 'runsc';

/** The OCI runtime a sandbox container runs under: runc (namespaces on the host kernel) or gVisor. */
export type SandboxRuntime = 'runc' | 'runsc';

/** The runtime sandboxes get, and why; `fallback` marks auto settling for runc. */
export interface RuntimeChoice {
  runtime: SandboxRuntime;
  /** The engine's name of the runtime containers start under: `runc`, `runsc`, or `runsc-<platform>`. */
  engineRuntime: string;
  /** gVisor's platform, when the runtime is one registered per platform. */
  platform?: GvisorPlatform;
  reason: string;
  fallback: boolean;
}

/** What the probe of the platform runtimes found (sandbox/platform-probe.ts): each platform, passed or not. */
export interface PlatformRanking {
  results: { platform: GvisorPlatform; ok: boolean; readyMs?: number; error?: string }[];
  /** Where the results came from: probed now, or the cache of an earlier probe. */
  source: 'probed' | 'cached';
}

/** How a platform is settled: THREADLAB_SANDBOX_PLATFORM, and the probe's ranking when that is auto. */
export interface PlatformOptions {
  /** THREADLAB_SANDBOX_PLATFORM. @defaultValue 'auto' */
  platform?: PlatformSetting;
  /** The probe's results; without them auto keeps `runsc`, or ptrace's runtime. */
  ranking?: PlatformRanking;
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
 * Under gVisor, the platform: THREADLAB_SANDBOX_PLATFORM when set (its runtime `runsc-<platform>` must be
 * registered), else the fastest that passed the probe, else ptrace, the fallback (see choosePlatform).
 */
export function chooseRuntime(
  setting: RuntimeSetting,
  registered: readonly string[],
  options: PlatformOptions = {},
): RuntimeChoice {
  const perPlatform = platformRuntimes(registered);
  const hasRunsc = registered.includes('runsc') || perPlatform.length > 0;
  if (setting === 'runc')
    return {
      runtime: 'runc',
      engineRuntime: 'runc',
      reason: 'THREADLAB_SANDBOX_RUNTIME=runc (gVisor not asked for)',
      fallback: false,
    };
  if (setting === 'runsc') {
    if (hasRunsc) return choosePlatform('THREADLAB_SANDBOX_RUNTIME=runsc', registered, options);
    throw new ThreadlabError(
      'sandbox_runtime_missing',
      `THREADLAB_SANDBOX_RUNTIME=runsc, but the Docker engine has no runtime named runsc (it has: ${registered.join(', ') || 'none'}). ` +
        `To use gVisor, ${RUNSC_INSTALL_HINT}; or set THREADLAB_SANDBOX_RUNTIME=auto to fall back to runc.`,
      { details: { registered } },
    );
  }
  return hasRunsc
    ? choosePlatform('auto: the Docker engine has gVisor (runsc) registered', registered, options)
    : {
        runtime: 'runc',
        engineRuntime: 'runc',
        reason:
          'auto: gVisor (runsc) is not registered with the Docker engine, so sandboxes use runc (one wall: namespaces, seccomp, no network)',
        fallback: true,
      };
}

const ms = (n: number | undefined) => (n === undefined ? '?' : `${Math.round(n).toLocaleString('en-US')} ms`);

/** What the probe found, for the reason: "kvm failed (…); ptrace ready in 2,100 ms". */
export function describeRanking(ranking: PlatformRanking): string {
  return ranking.results
    .map((r) => (r.ok ? `${r.platform} ready in ${ms(r.readyMs)}` : `${r.platform} failed (${r.error ?? 'no reason'})`))
    .join('; ');
}

function choosePlatform(why: string, registered: readonly string[], options: PlatformOptions): RuntimeChoice {
  const perPlatform = platformRuntimes(registered);
  const gvisor = (platform: GvisorPlatform, reason: string): RuntimeChoice => ({
    runtime: 'runsc',
    engineRuntime: platformRuntimeName(platform),
    platform,
    reason: `${why}; platform ${platform}: ${reason}`,
    fallback: false,
  });
  const asked = options.platform ?? 'auto';
  if (asked !== 'auto') {
    if (perPlatform.some((p) => p.platform === asked)) return gvisor(asked, `THREADLAB_SANDBOX_PLATFORM=${asked}`);
    throw new ThreadlabError(
      'sandbox_runtime_missing',
      `THREADLAB_SANDBOX_PLATFORM=${asked}, but the Docker engine has no runtime named ${platformRuntimeName(asked)} ` +
        `(it has: ${registered.join(', ') || 'none'}). Run \`sudo bash scripts/ensure-docker.sh\`, which registers one runtime ` +
        `per platform the installed runsc offers, or set THREADLAB_SANDBOX_PLATFORM=auto.`,
      { details: { registered } },
    );
  }
  if (perPlatform.length === 0)
    return { runtime: 'runsc', engineRuntime: 'runsc', reason: `${why} (its own platform)`, fallback: false };
  const registeredNames = new Set(perPlatform.map((p) => p.platform));
  const passed = (options.ranking?.results ?? [])
    .filter((r) => r.ok && r.readyMs !== undefined && registeredNames.has(r.platform))
    .sort((a, b) => (a.readyMs ?? 0) - (b.readyMs ?? 0));
  const fastest = passed[0];
  const found = options.ranking ? ` (probe ${options.ranking.source}: ${describeRanking(options.ranking)})` : '';
  if (fastest) return gvisor(fastest.platform, `the fastest that passed the probe${found}`);
  const fallback = registeredNames.has(FALLBACK_PLATFORM) ? FALLBACK_PLATFORM : perPlatform[0]!.platform;
  return gvisor(
    fallback,
    `${options.ranking ? 'no platform passed the probe' : 'not probed'}, so the fallback${found}`,
  );
}

/** Probes the platform runtimes it is given (sandbox/platform-probe.ts rankPlatforms, bound to an image). */
export type RankPlatforms = (platforms: GvisorPlatform[]) => Promise<PlatformRanking>;

/**
 * Asks the engine which runtimes it has and decides; see chooseRuntime. The probe runs only when it can change
 * the outcome: gVisor with THREADLAB_SANDBOX_PLATFORM=auto and two or more platform runtimes registered.
 */
export async function resolveRuntime(
  docker: Pick<Docker, 'info'>,
  setting: RuntimeSetting,
  options: { platform?: PlatformSetting; rank?: RankPlatforms } = {},
): Promise<RuntimeChoice> {
  if (setting === 'runc') return chooseRuntime(setting, []);
  const registered = await registeredRuntimes(docker);
  const perPlatform = platformRuntimes(registered);
  const platform = options.platform ?? 'auto';
  const ranking =
    platform === 'auto' && perPlatform.length > 1 && options.rank
      ? await options.rank(perPlatform.map((p) => p.platform))
      : undefined;
  return chooseRuntime(setting, registered, { platform, ...(ranking ? { ranking } : {}) });
}
