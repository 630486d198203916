/**
 * gVisor's platforms (how its kernel intercepts the sandboxed program's system calls), and the Docker runtimes
 * Threadlab registers for them: one runtime `runsc-<platform>` per platform the installed runsc offers, each with
 * the same arguments as `runsc` apart from `--platform` (scripts/ensure-docker.sh writes them).
 */

/** The platforms gVisor has had: ptrace (any kernel, slowest), kvm (needs a usable /dev/kvm), systrap (2023 on). */
export const GVISOR_PLATFORMS = ['ptrace', 'kvm', 'systrap'] as const;

/** One of gVisor's platforms. */
export type GvisorPlatform = (typeof GVISOR_PLATFORMS)[number];

/** THREADLAB_SANDBOX_PLATFORM: `auto` takes the fastest platform that passed the probe, else one platform. */
export type PlatformSetting = 'auto' | GvisorPlatform;

/** The platform every runsc has and the one to fall back to. */
export const FALLBACK_PLATFORM: GvisorPlatform = 'ptrace';

const PREFIX = 'runsc-';

/** The Docker runtime name of a platform's runtime: `runsc-kvm`. */
export function platformRuntimeName(platform: GvisorPlatform): string {
  return `${PREFIX}${platform}`;
}

/** The platform of a runtime named `runsc-<platform>`; undefined for any other name (runc, runsc, probe41-hang). */
export function platformOfRuntime(name: string): GvisorPlatform | undefined {
  if (!name.startsWith(PREFIX)) return undefined;
  const rest = name.slice(PREFIX.length);
  return (GVISOR_PLATFORMS as readonly string[]).includes(rest) ? (rest as GvisorPlatform) : undefined;
}

/** The platform runtimes among the engine's runtimes, in GVISOR_PLATFORMS order. */
export function platformRuntimes(registered: readonly string[]): { platform: GvisorPlatform; runtime: string }[] {
  return GVISOR_PLATFORMS.filter((p) => registered.includes(platformRuntimeName(p))).map((platform) => ({
    platform,
    runtime: platformRuntimeName(platform),
  }));
}

/**
 * The platforms a runsc offers, read from `runsc flags` (its `-platform` line, e.g. "specifies which platform to
 * use: ptrace (default), kvm.") or, on releases with that subcommand, `runsc platforms` (one name a line). Names
 * Threadlab does not know are left out; ptrace is always there.
 */
export function platformsOffered(runscOutput: string): GvisorPlatform[] {
  const flagLine = /platform to use:([^\n]*)/.exec(runscOutput)?.[1];
  const words = (flagLine ?? runscOutput).split(/[^a-z0-9]+/);
  const offered = GVISOR_PLATFORMS.filter((p) => words.includes(p));
  return offered.includes(FALLBACK_PLATFORM) ? offered : [FALLBACK_PLATFORM, ...offered];
}
