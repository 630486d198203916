import { describe, expect, it } from 'vitest';
import { isThreadlabError } from '../../../src/domain/errors.js';
import { chooseRuntime, registeredRuntimes, resolveRuntime } from '../../../sandbox/runtime.js';

/** The one call runtime selection makes of the engine: `docker info`, answering these runtimes. */
const engine = (runtimes: Record<string, unknown> | undefined) => {
  const calls: number[] = [];
  return { calls, info: async () => (calls.push(1), { Runtimes: runtimes }) };
};

describe('sandbox runtime selection', () => {
  it('auto picks runsc when the engine has it registered', () => {
    expect(chooseRuntime('auto', ['runc', 'runsc'])).toMatchObject({ runtime: 'runsc', fallback: false });
  });

  it('auto falls back to runc without runsc, saying why', () => {
    const choice = chooseRuntime('auto', ['io.containerd.runc.v2', 'runc']);
    expect(choice).toMatchObject({ runtime: 'runc', fallback: true });
    expect(choice.reason).toMatch(/not registered/);
  });

  it('runsc asked for but not registered is a start-up error that says how to install it', () => {
    let thrown: unknown;
    try {
      chooseRuntime('runsc', ['runc']);
    } catch (err) {
      thrown = err;
    }
    expect(isThreadlabError(thrown, 'sandbox_runtime_missing')).toBe(true);
    expect((thrown as Error).message).toMatch(/THREADLAB_SANDBOX_RUNTIME=runsc/);
    expect((thrown as Error).message).toMatch(/ensure-docker\.sh/);
    expect((thrown as Error).message).toMatch(/it has: runc/);
  });

  it('runc asked for is runc without asking the engine', async () => {
    const docker = engine({ runsc: {} });
    expect(await resolveRuntime(docker, 'runc')).toMatchObject({ runtime: 'runc', fallback: false });
    expect(docker.calls).toHaveLength(0);
  });

  it("reads the engine's runtimes from docker info, and none when it lists none", async () => {
    expect(await registeredRuntimes(engine({ runsc: { path: '/usr/bin/runsc' }, runc: {} }))).toEqual([
      'runc',
      'runsc',
    ]);
    expect(await registeredRuntimes(engine(undefined))).toEqual([]);
    expect(await resolveRuntime(engine({ runc: {} }), 'auto')).toMatchObject({ runtime: 'runc', fallback: true });
  });
});

describe('gVisor platform selection', () => {
  const withPlatforms = ['runc', 'runsc', 'runsc-kvm', 'runsc-ptrace'];
  const ranking = {
    source: 'probed' as const,
    results: [
      { platform: 'ptrace' as const, ok: true, readyMs: 676 },
      { platform: 'kvm' as const, ok: false, error: 'did not become ready within 20000 ms' },
    ],
  };

  it('keeps `runsc` itself while the engine has no runtime per platform', () => {
    expect(chooseRuntime('auto', ['runc', 'runsc'])).toMatchObject({ runtime: 'runsc', engineRuntime: 'runsc' });
  });

  it('takes the fastest platform that passed the probe, and says what the probe found', () => {
    const choice = chooseRuntime('auto', withPlatforms, { ranking });
    expect(choice).toMatchObject({ runtime: 'runsc', engineRuntime: 'runsc-ptrace', platform: 'ptrace' });
    expect(choice.reason).toMatch(/fastest that passed the probe/);
    expect(choice.reason).toMatch(/kvm failed \(did not become ready within 20000 ms\)/);
    const both = {
      source: 'cached' as const,
      results: [
        { ...ranking.results[0]!, readyMs: 2100 },
        { platform: 'kvm' as const, ok: true, readyMs: 450 },
      ],
    };
    expect(chooseRuntime('runsc', withPlatforms, { ranking: both })).toMatchObject({
      engineRuntime: 'runsc-kvm',
      platform: 'kvm',
    });
  });

  it('falls back to ptrace when no platform passed, or nothing was probed', () => {
    const none = {
      source: 'probed' as const,
      results: [
        { platform: 'kvm' as const, ok: false },
        { platform: 'ptrace' as const, ok: false },
      ],
    };
    expect(chooseRuntime('auto', withPlatforms, { ranking: none })).toMatchObject({ platform: 'ptrace' });
    expect(chooseRuntime('auto', withPlatforms, { ranking: none }).reason).toMatch(/no platform passed the probe/);
    expect(chooseRuntime('auto', withPlatforms).reason).toMatch(/not probed, so the fallback/);
  });

  it('THREADLAB_SANDBOX_PLATFORM overrides the probe, and a platform without its runtime is a start-up error', () => {
    expect(chooseRuntime('auto', withPlatforms, { platform: 'kvm', ranking })).toMatchObject({
      engineRuntime: 'runsc-kvm',
      reason: expect.stringMatching(/THREADLAB_SANDBOX_PLATFORM=kvm/),
    });
    let thrown: unknown;
    try {
      chooseRuntime('auto', withPlatforms, { platform: 'systrap' });
    } catch (err) {
      thrown = err;
    }
    expect(isThreadlabError(thrown, 'sandbox_runtime_missing')).toBe(true);
    expect((thrown as Error).message).toMatch(/no runtime named runsc-systrap/);
  });

  it('probes only when it can change the outcome: auto, and two platforms or more', async () => {
    const asked: string[][] = [];
    const rank = async (platforms: string[]) => (asked.push(platforms), ranking);
    expect(
      await resolveRuntime(engine(Object.fromEntries(withPlatforms.map((r) => [r, {}]))), 'auto', { rank }),
    ).toMatchObject({ platform: 'ptrace' });
    expect(asked).toEqual([['ptrace', 'kvm']]);
    await resolveRuntime(engine({ runc: {}, runsc: {}, 'runsc-kvm': {}, 'runsc-ptrace': {} }), 'runsc', {
      rank,
      platform: 'ptrace',
    });
    await resolveRuntime(engine({ runc: {}, runsc: {}, 'runsc-ptrace': {} }), 'auto', { rank });
    await resolveRuntime(engine({ runsc: {}, 'runsc-kvm': {}, 'runsc-ptrace': {} }), 'runc', { rank });
    expect(asked).toHaveLength(1);
  });
});
