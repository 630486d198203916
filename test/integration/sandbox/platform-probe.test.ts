import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isThreadlabError } from '../../../src/domain/errors.js';
import { launchContainer } from '../../../sandbox/launch-container.js';
import { probePlatforms } from '../../../sandbox/platform-probe.js';
import { chooseRuntime, registeredRuntimes } from '../../../sandbox/runtime.js';
import { containersOf, docker, logger, makeSandbox, sandboxImage, testLimits, type TestSandbox } from './helpers.js';
import { ensureHangRuntime, HANG_RUNTIME, hangProcesses } from './hang-runtime.js';

/** The bound given to each hanging start here, and what removing it may add (ending its processes, docker rm). */
const BOUND_MS = 4000;
const CLEANUP_SLACK_MS = 15_000;

let unavailable: string | undefined;
let gvisor: string | undefined;
beforeAll(async () => {
  unavailable = await ensureHangRuntime();
  const registered = await registeredRuntimes(docker);
  gvisor = ['runsc-ptrace', 'runsc'].find((r) => registered.includes(r));
});

/** No container of the probe is left, and none of the stand-in's processes. */
async function expectNothingLeft(instancePrefix: string): Promise<void> {
  const all = await docker.listContainers({ all: true, filters: { label: ['dev.threadlab.instance'] } });
  expect(all.filter((c) => c.Labels['dev.threadlab.instance']?.startsWith(instancePrefix))).toEqual([]);
  expect(await hangProcesses()).toEqual([]);
}

describe(`a runtime that never becomes ready (${HANG_RUNTIME}, a stand-in for gVisor's KVM platform here)`, () => {
  it('fails its launch within the bound: the container and its runtime processes are gone, and the error says so', async (ctx) => {
    if (unavailable) ctx.skip(`the stand-in runtime is not registered: ${unavailable}`);
    const instanceId = `test-hang-${process.pid}-${Date.now().toString(36)}`;
    const started = performance.now();
    const launch = launchContainer({
      docker,
      image: await sandboxImage(),
      limits: testLimits(),
      instanceId,
      session: 'hang',
      logger,
      runtime: 'runc',
      engineRuntime: HANG_RUNTIME,
      readyTimeoutMs: BOUND_MS,
    });
    const err = await launch.then(
      () => undefined,
      (e: unknown) => e,
    );
    const tookMs = performance.now() - started;
    expect(isThreadlabError(err, 'sandbox_start_failed')).toBe(true);
    expect((err as Error).message).toMatch(new RegExp(`did not become ready within ${BOUND_MS} ms`));
    expect(tookMs).toBeGreaterThanOrEqual(BOUND_MS - 50);
    expect(tookMs).toBeLessThan(BOUND_MS + CLEANUP_SLACK_MS);
    expect(await containersOf(instanceId)).toEqual([]);
    await expectNothingLeft(instanceId);
  });

  it('is skipped by the probe, which picks the platform that passed, within the bound', async (ctx) => {
    if (unavailable) ctx.skip(`the stand-in runtime is not registered: ${unavailable}`);
    if (!gvisor) ctx.skip('gVisor (runsc) is not registered with the engine');
    const started = performance.now();
    const results = await probePlatforms(
      { docker, image: await sandboxImage(), limits: testLimits(), logger, timeoutMs: BOUND_MS },
      [
        { platform: 'kvm', runtime: HANG_RUNTIME },
        { platform: 'ptrace', runtime: gvisor! },
      ],
    );
    const tookMs = performance.now() - started;
    expect(results[0]).toMatchObject({
      platform: 'kvm',
      ok: false,
      error: expect.stringMatching(/did not become ready/),
    });
    expect(results[1]).toMatchObject({ platform: 'ptrace', ok: true });
    expect(results[1]!.readyMs).toBeLessThan(BOUND_MS);
    expect(tookMs).toBeLessThan(2 * BOUND_MS + CLEANUP_SLACK_MS);
    const choice = chooseRuntime('auto', ['runc', 'runsc', 'runsc-kvm', 'runsc-ptrace'], {
      ranking: { results, source: 'probed' },
    });
    expect(choice).toMatchObject({ runtime: 'runsc', engineRuntime: 'runsc-ptrace', platform: 'ptrace' });
    expect(choice.reason).toMatch(/kvm failed \(.*did not become ready within 4000 ms/);
    await expectNothingLeft(`platform-probe-${process.pid}-`);
  });

  describe('a thread whose platform hangs', () => {
    let t: TestSandbox | undefined;
    afterAll(async () => {
      await t?.close();
    });

    it('is told its sandbox did not start, and nothing is left running', async (ctx) => {
      if (unavailable) ctx.skip(`the stand-in runtime is not registered: ${unavailable}`);
      // The engine as the sandbox sees it: gVisor with a kvm platform runtime, which is the stand-in. Only the
      // engine client is wrapped; the sandbox, its launcher and the real engine run as in production.
      const engine = Object.create(docker) as Docker;
      engine.info = async () => {
        const info = (await docker.info()) as { Runtimes: Record<string, unknown> };
        return { ...info, Runtimes: { ...info.Runtimes, 'runsc-kvm': {}, 'runsc-ptrace': {} } };
      };
      engine.createContainer = (spec: Docker.ContainerCreateOptions) =>
        docker.createContainer(
          spec.HostConfig?.Runtime === 'runsc-kvm'
            ? { ...spec, HostConfig: { ...spec.HostConfig, Runtime: HANG_RUNTIME } }
            : spec,
        );
      t = await makeSandbox('hang-thread', {}, undefined, {
        runtime: 'runsc',
        platform: 'kvm',
        docker: engine,
        readyTimeoutMs: BOUND_MS,
      });
      expect(t.sandbox.runtime).toMatchObject({ engineRuntime: 'runsc-kvm', platform: 'kvm' });
      const started = performance.now();
      const outcome = await t.sandbox.run('hang', { language: 'python', code: 'print(1)' }).then(
        (result) => ({ result, err: undefined }),
        (err: unknown) => ({ result: undefined, err }),
      );
      const tookMs = performance.now() - started;
      expect(outcome.result).toBeUndefined();
      expect(isThreadlabError(outcome.err, 'sandbox_start_failed')).toBe(true);
      expect((outcome.err as Error).message).toMatch(/did not become ready within 4000 ms/);
      expect(tookMs).toBeLessThan(BOUND_MS + CLEANUP_SLACK_MS);
      await expectNothingLeft(t.instanceId);
    });
  });
});
