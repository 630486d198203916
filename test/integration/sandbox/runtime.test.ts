import { release, version } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { registeredRuntimes } from '../../../sandbox/runtime.js';
import { containersOf, docker, makeSandbox, type TestSandbox } from './helpers.js';

const skipped = process.env.THREADLAB_TEST_RUNSC_SKIPPED ?? '';
let open: TestSandbox | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

/** What the code in the sandbox sees of its kernel, and the runtime the engine started the container with. */
// (dmesg would say "Starting gVisor...", but syslog(2) is outside the seccomp allowlist under both runtimes.)
async function probe(t: TestSandbox): Promise<{ kernel: string; build: string; runtime: string | undefined }> {
  const result = await t.sandbox.run('probe', {
    language: 'python',
    code: 'import os\nprint(os.uname().release)\nprint(os.uname().version)',
  });
  expect(result.error, result.error?.traceback).toBeUndefined();
  const [kernel = '', build = ''] = result.stdout.trim().split('\n');
  const [info] = await containersOf(t.instanceId);
  const inspect = await docker.getContainer(info!.Id).inspect();
  return { kernel, build, runtime: inspect.HostConfig.Runtime };
}

describe('THREADLAB_SANDBOX_RUNTIME=runc', () => {
  it("runs the session's container under runc, on the host's kernel", async () => {
    open = await makeSandbox('rt-runc', {}, undefined, { runtime: 'runc' });
    const seen = await probe(open);
    expect(open.sandbox.runtime?.runtime).toBe('runc');
    expect(seen.runtime).toBe('runc');
    expect(seen.kernel).toBe(release());
    expect(seen.build).toBe(version());
  });
});

describe.skipIf(skipped !== '')(`gVisor (runsc)${skipped ? ` — skipped: ${skipped}` : ''}`, () => {
  it("runs the session's container in gVisor when runsc is selected: the engine's runtime and the kernel the code sees", async () => {
    open = await makeSandbox('rt-runsc', {}, undefined, { runtime: 'runsc' });
    const seen = await probe(open);
    expect(open.sandbox.runtime).toMatchObject({ runtime: 'runsc', fallback: false });
    // runsc itself, or the runtime of the platform the probe chose (runsc-ptrace) where one is registered per platform.
    expect(seen.runtime).toBe(open.sandbox.runtime?.engineRuntime);
    expect(seen.runtime).toMatch(/^runsc(-ptrace|-kvm|-systrap)?$/);
    // gVisor's kernel answers uname with its own release and build (4.4.0, #1 SMP … 2016), not the host's.
    expect(seen.kernel).not.toBe(release());
    expect(seen.build).not.toBe(version());
  });

  it('picks runsc on its own (auto) when the engine has it registered', async () => {
    open = await makeSandbox('rt-auto', {}, undefined, { runtime: 'auto' });
    const seen = await probe(open);
    expect(open.sandbox.runtime).toMatchObject({ runtime: 'runsc', fallback: false });
    expect(open.sandbox.runtime?.reason).toMatch(/registered/);
    expect(seen.runtime).toBe(open.sandbox.runtime?.engineRuntime);
    expect(seen.kernel).not.toBe(release());
  });

  it('THREADLAB_SANDBOX_PLATFORM=ptrace runs the container under the runtime registered for that platform', async (ctx) => {
    if (!(await registeredRuntimes(docker)).includes('runsc-ptrace'))
      ctx.skip('no runsc-ptrace registered (scripts/ensure-docker.sh registers one runtime per platform)');
    open = await makeSandbox('rt-ptrace', {}, undefined, { runtime: 'auto', platform: 'ptrace' });
    const seen = await probe(open);
    expect(open.sandbox.runtime).toMatchObject({ runtime: 'runsc', engineRuntime: 'runsc-ptrace', platform: 'ptrace' });
    expect(open.sandbox.runtime?.reason).toMatch(/THREADLAB_SANDBOX_PLATFORM=ptrace/);
    expect(seen.runtime).toBe('runsc-ptrace');
    expect(seen.kernel).not.toBe(release());
  });
});
