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
