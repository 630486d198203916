import type Docker from 'dockerode';
import type { Logger } from '../../src/logger.js';
import {
  platformRuntimes,
  type GvisorPlatform,
  cachedRanking,
  type SandboxLimits,
  type RankPlatforms,
  type SandboxRuntime,
} from '../../app/sandbox-kit.js';

/** One column of a sandbox bench: a runtime, and under gVisor the platform when the engine has one per platform. */
export interface BenchColumn {
  runtime: SandboxRuntime;
  platform?: GvisorPlatform;
}

/** A column's heading: `runc`, `runsc`, or `runsc-kvm`. */
export function columnLabel(column: BenchColumn): string {
  return column.platform ? `${column.runtime}-${column.platform}` : column.runtime;
}

/**
 * The columns of a bench: runc, and under runsc one column per gVisor platform that works here (passed the probe,
 * cached or run now, each bounded: sandbox/platform-probe.ts), or `runsc` alone where the engine has no runtime per
 * platform. A platform that failed its probe is no column; why is returned to be printed.
 */
export async function benchColumns(
  options: { docker: Docker; image: string; limits: SandboxLimits; logger: Logger; rank?: RankPlatforms },
  runtimes: readonly SandboxRuntime[],
  registered: readonly string[],
): Promise<{ columns: BenchColumn[]; platformsSkipped: string[] }> {
  const perPlatform = platformRuntimes(registered).map((p) => p.platform);
  if (!runtimes.includes('runsc') || perPlatform.length === 0)
    return { columns: runtimes.map((runtime) => ({ runtime })), platformsSkipped: [] };
  const { results } = await (options.rank ?? cachedRanking(options))(perPlatform);
  const passed = new Set(results.filter((r) => r.ok).map((r) => r.platform));
  const platformsSkipped = results
    .filter((r) => !r.ok)
    .map((r) => `${r.platform}: failed its probe (${r.error ?? 'no reason given'})`);
  const gvisor: BenchColumn[] = perPlatform
    .filter((p) => passed.has(p))
    .map((platform) => ({ runtime: 'runsc', platform }));
  return {
    columns: runtimes.flatMap((runtime): BenchColumn[] => (runtime === 'runsc' ? gvisor : [{ runtime }])),
    platformsSkipped,
  };
}
