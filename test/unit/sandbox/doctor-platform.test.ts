import { describe, expect, it } from 'vitest';
import { runDoctor, type DoctorDeps } from '../../../cli/doctor.js';
import { loadConfig } from '../../../src/config/index.js';
import type { RankPlatforms } from '../../../sandbox/runtime.js';

/** An engine with gVisor registered per platform, as scripts/ensure-docker.sh leaves it where /dev/kvm exists. */
const engine = {
  ping: async () => 'OK',
  version: async () => ({ Version: '20.10.24', ApiVersion: '1.41' }),
  getImage: () => ({ inspect: async () => ({ Size: 1, Config: { Labels: {} } }) }),
  info: async () => ({ Runtimes: { runc: {}, runsc: {}, 'runsc-ptrace': {}, 'runsc-kvm': {} } }),
} as unknown as DoctorDeps['docker'];

const line = async (env: Record<string, string>, rankPlatforms?: RankPlatforms) => {
  const { checks } = await runDoctor({
    config: loadConfig(env),
    docker: engine,
    pingRedis: async () => undefined,
    ...(rankPlatforms ? { rankPlatforms } : {}),
  });
  return checks.find((c) => c.name === 'Sandbox runtime')!;
};

describe("threadlab doctor: gVisor's platform", () => {
  const probed: string[][] = [];
  const rank: RankPlatforms = async (platforms) => {
    probed.push(platforms);
    return {
      source: 'probed',
      results: [
        { platform: 'ptrace', ok: true, readyMs: 676 },
        { platform: 'kvm', ok: false, error: 'did not become ready within 20000 ms' },
      ],
    };
  };

  it('prints the platform chosen and what the probe found', async () => {
    const check = await line({}, rank);
    expect(check.status).toBe('ok');
    expect(check.detail).toMatch(/^runsc: auto: .*platform ptrace: the fastest that passed the probe/);
    expect(check.detail).toContain('ptrace ready in 676 ms; kvm failed (did not become ready within 20000 ms)');
    expect(probed).toEqual([['ptrace', 'kvm']]);
  });

  it('honours THREADLAB_SANDBOX_PLATFORM without probing, and fails on a platform with no runtime', async () => {
    probed.length = 0;
    expect((await line({ THREADLAB_SANDBOX_PLATFORM: 'kvm' }, rank)).detail).toMatch(/THREADLAB_SANDBOX_PLATFORM=kvm/);
    const missing = await line({ THREADLAB_SANDBOX_PLATFORM: 'systrap' }, rank);
    expect(missing.status).toBe('fail');
    expect(missing.detail).toMatch(/no runtime named runsc-systrap/);
    expect(probed).toEqual([]);
  });
});
