import { execFile } from 'node:child_process';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type Docker from 'dockerode';
import { z } from 'zod';
import { GVISOR_PLATFORMS, platformRuntimeName, type GvisorPlatform } from './gvisor-platforms.js';
import { DEFAULT_PROBE_TIMEOUT_MS, probePlatforms, type ProbeOptions } from './platform-probe.js';
import type { PlatformRanking, RankPlatforms } from './runtime.js';

/** Where probe results are kept between processes: one file per user. */
export const DEFAULT_PLATFORM_CACHE = join(homedir(), '.cache', 'threadlab', 'gvisor-platforms.json');

/** The largest cache file read; anything bigger is ignored and probed again. */
const MAX_CACHE_BYTES = 64 * 1024;

const cacheSchema = z.object({
  key: z.string().max(8192),
  atMs: z.number(),
  results: z
    .array(
      z.object({
        platform: z.enum(GVISOR_PLATFORMS),
        ok: z.boolean(),
        readyMs: z.number().nonnegative().optional(),
        error: z.string().max(1000).optional(),
      }),
    )
    .max(GVISOR_PLATFORMS.length),
});

/** `runsc --version`'s first line for a runtime path on this host, within 3 s; '' when it cannot be run here. */
function runscVersion(path: string): Promise<string> {
  return new Promise((resolve) => {
    execFile(path, ['--version'], { timeout: 3000, maxBuffer: 64 * 1024 }, (err, stdout) =>
      resolve(err ? '' : (stdout.split('\n')[0] ?? '')),
    );
  });
}

/**
 * What a probe's outcome depends on: the kernel, each platform runtime's registration (path and arguments) and the
 * runsc version. A change in any of them probes again; a new sandbox image does not.
 */
export async function platformCacheKey(
  docker: Pick<Docker, 'info'>,
  platforms: readonly GvisorPlatform[],
): Promise<string> {
  const info = (await docker.info()) as { KernelVersion?: string; Runtimes?: Record<string, { path?: string }> };
  const runtimes = Object.fromEntries(platforms.map((p) => [p, info.Runtimes?.[platformRuntimeName(p)] ?? null]));
  const paths = [...new Set(Object.values(runtimes).map((r) => r?.path ?? ''))].filter(Boolean).sort();
  const versions = await Promise.all(paths.map(runscVersion));
  return JSON.stringify({ kernel: info.KernelVersion ?? '', runtimes, versions });
}

/** The cached results under this key, or undefined when there are none, they are for another key, or unreadable. */
export async function readPlatformCache(file: string, key: string): Promise<PlatformRanking['results'] | undefined> {
  const text = await readFile(file, 'utf8').catch(() => '');
  if (!text || text.length > MAX_CACHE_BYTES) return undefined;
  try {
    const parsed = cacheSchema.safeParse(JSON.parse(text));
    return parsed.success && parsed.data.key === key ? parsed.data.results : undefined;
  } catch {
    return undefined;
  }
}

/** Writes the results (atomically: a temporary file renamed over the old). */
export async function writePlatformCache(
  file: string,
  key: string,
  results: PlatformRanking['results'],
): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const slim = results.map(({ platform, ok, readyMs, error }) => ({
    platform,
    ok,
    ...(readyMs !== undefined ? { readyMs } : {}),
    ...(error !== undefined ? { error } : {}),
  }));
  await writeFile(tmp, `${JSON.stringify({ key, atMs: Date.now(), results: slim }, null, 2)}\n`);
  await rename(tmp, file);
}

/**
 * Takes the probe's lock (`<cache>.lock`, created exclusively), so that processes starting together probe once:
 * true when taken; false after waiting for another prober (at most `waitMs`, or at once when its lock is older).
 */
async function takeLock(lock: string, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      await (await open(lock, 'wx')).close();
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return false;
      const age = await stat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > waitMs || Date.now() > deadline) return false;
      await sleep(500);
    }
  }
}

/**
 * The ranking function resolveRuntime takes: the cache when its key still holds, else a probe of each platform
 * whose results are cached when one passed (a write that fails only costs the next process a probe). One process probes at a time;
 * the others wait for its results, within the probes' bound. `fresh` ignores the cache.
 */
export function cachedRanking(options: ProbeOptions & { cacheFile?: string; fresh?: boolean }): RankPlatforms {
  const file = options.cacheFile ?? DEFAULT_PLATFORM_CACHE;
  return async (platforms) => {
    const key = await platformCacheKey(options.docker, platforms);
    const cached = options.fresh ? undefined : await readPlatformCache(file, key);
    if (cached) return { results: cached, source: 'cached' };
    await mkdir(dirname(file), { recursive: true }).catch(() => undefined);
    const lock = `${file}.lock`;
    const waitMs = platforms.length * ((options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS) + 15_000);
    const locked = await takeLock(lock, waitMs);
    try {
      const theirs = options.fresh ? undefined : await readPlatformCache(file, key);
      if (theirs) return { results: theirs, source: 'cached' };
      const results = await probePlatforms(options, platforms);
      // Nothing passing says more about this moment (no image yet, an engine in trouble) than about the platforms.
      if (results.some((r) => r.ok)) await writePlatformCache(file, key, results).catch(() => undefined);
      return { results, source: 'probed' };
    } finally {
      if (locked) await rm(lock, { force: true });
    }
  };
}
