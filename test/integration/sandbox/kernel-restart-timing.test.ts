import { afterAll, describe, expect, it } from 'vitest';
import { threadHash } from '../../../src/domain/thread-key.js';
import { runscAvailability } from '../../setup/runtimes.js';
import { containersOf, docker, makeSandbox, type TestSandbox } from './helpers.js';

/**
 * A kernel that dies is replaced in the same container, which must cost less than replacing the container. It
 * compares two timings of its own, so it runs in the `timing` project, alone, under each runtime the engine has.
 */
const runtimes = ['runc', ...((await runscAvailability()).registered ? ['runsc' as const] : [])] as const;

describe.each(runtimes)('coming back from a dead kernel under %s', (runtime) => {
  let t: TestSandbox | undefined;
  afterAll(async () => {
    await t?.close();
  });

  it('is faster than coming back in a new container (printed)', async () => {
    t = await makeSandbox(`restart-${runtime}`, { memoryMb: 512, pids: 64, graceMs: 1000 }, undefined, { runtime });
    const sandbox = t.sandbox;
    const ok = async (code: string) => {
      const result = await sandbox.run('speed', { language: 'python', code });
      expect(result.error, result.error?.traceback).toBeUndefined();
    };
    const timeNext = async () => {
      const started = performance.now();
      await ok('print(1)');
      return performance.now() - started;
    };
    const containerOf = async () =>
      (await containersOf(t!.instanceId)).filter((c) => c.Labels['dev.threadlab.session'] === threadHash('speed'));
    await ok('x = 1');
    const [container] = await containerOf();
    await sandbox.run('speed', { language: 'python', code: 'import os\nos._exit(1)' });
    const kernelMs = await timeNext();
    expect((await containerOf()).map((c) => c.Id)).toEqual([container!.Id]); // a new kernel, not a new container
    await docker.getContainer(container!.Id).kill();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const containerMs = await timeNext();
    process.stdout.write(
      `${runtime}: next run after a crash: kernel restart ${kernelMs.toFixed(0)} ms, container replacement ${containerMs.toFixed(0)} ms\n`,
    );
    expect(kernelMs).toBeLessThan(containerMs);
  });
});
