import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  platformOfRuntime,
  platformRuntimeName,
  platformRuntimes,
  platformsOffered,
} from '../../../sandbox/gvisor-platforms.js';
import { readPlatformCache, writePlatformCache } from '../../../sandbox/platform-cache.js';

/** `runsc flags` of Debian's runsc 0.0~20221219, the lines around -platform, as printed on this machine. */
const DEBIAN_FLAGS = `  -pidns
    	use a separate PID namespace (default true)
  -platform string
    	specifies which platform to use: ptrace (default), kvm. (default "ptrace")
  -platform_device_path string
    	path to a platform-specific device file (e.g. /dev/kvm for KVM platform). If unset, will use a sane platform-specific default.`;

describe('gVisor platforms', () => {
  it("reads the platforms a runsc offers from its flags, or from newer releases' `runsc platforms`", () => {
    expect(platformsOffered(DEBIAN_FLAGS)).toEqual(['ptrace', 'kvm']);
    expect(platformsOffered('systrap\nptrace\nkvm\n')).toEqual(['ptrace', 'kvm', 'systrap']);
    // Unknown names are left out; ptrace, which every runsc has, is always there.
    expect(platformsOffered('specifies which platform to use: gizmo (default).')).toEqual(['ptrace']);
  });

  it('names one Docker runtime per platform and reads the platform back only from those names', () => {
    expect(platformRuntimeName('kvm')).toBe('runsc-kvm');
    expect(platformOfRuntime('runsc-systrap')).toBe('systrap');
    for (const other of ['runc', 'runsc', 'probe41-hang', 'runsc-', 'runsc-kvm2'])
      expect(platformOfRuntime(other)).toBeUndefined();
    expect(platformRuntimes(['runc', 'runsc', 'runsc-kvm', 'runsc-ptrace', 'probe41-hang'])).toEqual([
      { platform: 'ptrace', runtime: 'runsc-ptrace' },
      { platform: 'kvm', runtime: 'runsc-kvm' },
    ]);
  });
});

describe('the probe cache', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });
  const file = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'platform-cache-'));
    dirs.push(dir);
    return join(dir, 'gvisor-platforms.json');
  };

  it('gives back what was written under the same key only', async () => {
    const path = await file();
    const results = [
      { platform: 'ptrace' as const, ok: true, readyMs: 676 },
      { platform: 'kvm' as const, ok: false, error: 'did not become ready within 20000 ms' },
    ];
    await writePlatformCache(path, 'kernel 6.18 runsc 20221219', results);
    expect(await readPlatformCache(path, 'kernel 6.18 runsc 20221219')).toEqual(results);
    expect(await readPlatformCache(path, 'kernel 6.19 runsc 20221219')).toBeUndefined();
  });

  it('ignores a file that is not a cache: unknown platforms, bad JSON, too large, missing', async () => {
    const path = await file();
    const entry = { key: 'k', atMs: 1, results: [{ platform: 'warp', ok: true, readyMs: 1 }] };
    await writeFile(path, JSON.stringify(entry));
    expect(await readPlatformCache(path, 'k')).toBeUndefined();
    await writeFile(path, '{"key": "k", ');
    expect(await readPlatformCache(path, 'k')).toBeUndefined();
    await writeFile(path, JSON.stringify({ ...entry, results: [], pad: 'x'.repeat(70_000) }));
    expect(await readPlatformCache(path, 'k')).toBeUndefined();
    expect(await readPlatformCache(join(path, 'missing'), 'k')).toBeUndefined();
  });
});
