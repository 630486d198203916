import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containersOf, docker, makeSandbox, testRuntime, type TestSandbox } from './helpers.js';

let t: TestSandbox;
beforeAll(async () => {
  t = await makeSandbox('res', {
    memoryMb: 768,
    pids: 48,
    graceMs: 1000,
    outputBytes: 4096,
    maxFileBytes: 4 * 1024 * 1024,
  });
});
afterAll(async () => {
  await t?.close();
});

/** Runs `code` in `key` while a bystander session keeps answering. */
async function withBystander<T>(work: Promise<T>): Promise<T> {
  const bystander = await t.sandbox.run('bystander', { language: 'python', code: 'n = globals().get("n", 0) + 1\nn' });
  expect(bystander.status).toBe('ok');
  const started = Date.now();
  const [result, during] = await Promise.all([
    work,
    new Promise((r) => setTimeout(r, 300)).then(() =>
      t.sandbox.run('bystander', { language: 'python', code: 'n += 1\nn' }),
    ),
  ]);
  expect(during.status).toBe('ok');
  expect(Date.now() - started).toBeLessThan(30_000);
  return result;
}

describe('sandbox under hostile code', () => {
  it('interrupts an infinite loop at the deadline and keeps the session', async () => {
    await t.sandbox.run('loop', { language: 'python', code: 'kept = 123' });
    const result = await withBystander(
      t.sandbox.run('loop', { language: 'python', code: 'while True:\n    pass', timeoutMs: 800 }),
    );
    expect(result.status).toBe('timeout');
    expect(result.error?.value).toContain('THREADLAB_SANDBOX_TIMEOUT_MS');
    expect(result.stateReset).toBeUndefined();
    const after = await t.sandbox.run('loop', { language: 'python', code: 'kept' });
    expect(after.displays[0]?.data['text/plain']).toBe('123');
    expect(after.stateReset).toBeUndefined();
  });

  it('interrupts a sleeping bash script and a python sleep', async () => {
    const bash = await t.sandbox.run('loop', { language: 'bash', code: 'echo start; sleep 30', timeoutMs: 500 });
    expect(bash).toMatchObject({ status: 'timeout', stdout: 'start\n' });
    const sleep = await t.sandbox.run('loop', {
      language: 'python',
      code: 'import time\ntime.sleep(30)',
      timeoutMs: 500,
    });
    expect(sleep.status).toBe('timeout');
    expect(sleep.durationMs).toBeLessThan(3000);
  });

  it('stops on abort like a timeout, reporting a user stop', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 400);
    const result = await t.sandbox.run('loop', {
      language: 'python',
      code: 'import time\nwhile True: time.sleep(0.01)',
      signal: controller.signal,
    });
    expect(result.status).toBe('timeout');
    expect(result.interruptedBy).toBe('cancelled');
    expect(result.error?.value).toMatch(/stopped by the user/);
    expect(t.sandbox.isLive('loop')).toBe(true);
  });

  it('a stop that comes with the run (pressed before it began) stops it at once, not by killing its container', async () => {
    // The interrupt follows the run's request on the stream at once: the runner may read it before it began the
    // run, and must still apply it to that run.
    for (let i = 0; i < 3; i++) {
      const controller = new AbortController();
      controller.abort();
      const result = await t.sandbox.run('loop', {
        language: 'python',
        code: 'import time\nwhile True: time.sleep(0.01)',
        signal: controller.signal,
      });
      expect(result).toMatchObject({ status: 'timeout', interruptedBy: 'cancelled' });
      expect(result.durationMs).toBeLessThan(3000);
    }
  });

  it('kills code that ignores the interrupt, keeps its files, and says the state was reset', async () => {
    await t.sandbox.run('stubborn', { language: 'python', code: 'open("keep.txt", "w").write("kept")\nv = 1' });
    const result = await t.sandbox.run('stubborn', {
      language: 'python',
      code: 'import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass',
      timeoutMs: 500,
    });
    expect(result).toMatchObject({ status: 'killed', killReason: 'timeout' });
    expect(result.stateReset?.reason).toBeTruthy();
    const after = await t.sandbox.run('stubborn', {
      language: 'python',
      code: 'print(open("keep.txt").read(), "v" in globals())',
    });
    expect(after).toMatchObject({ status: 'ok', stdout: 'kept False\n' });
    expect(after.stateReset).toBeUndefined(); // already told by the killed result
  });

  it('the kernel that replaces one killed while its processes were being stopped lives on', async () => {
    // The interrupt's sweep of the run's processes is still going when the kernel, which ignores the
    // interrupt and keeps starting children, is killed at the end of the grace period and replaced: the
    // sweep must end with the run and leave the new kernel alone.
    const result = await t.sandbox.run('respawn', {
      language: 'python',
      code: [
        'import signal, subprocess',
        'signal.signal(signal.SIGINT, signal.SIG_IGN)',
        'while True:',
        '    try:',
        '        subprocess.Popen(["sleep", "30"])',
        '    except OSError:',
        '        pass',
      ].join('\n'),
      timeoutMs: 500,
    });
    expect(result).toMatchObject({ status: 'killed', killReason: 'timeout' });
    const after = await t.sandbox.run('respawn', {
      language: 'python',
      code: 'import time\ntime.sleep(3)\nprint("alive")',
    });
    expect(after).toMatchObject({ status: 'ok', stdout: 'alive\n' });
    // The new kernel was not killed before the run either (a second restart would be said here).
    expect(after.stateReset?.reason ?? '').not.toMatch(/Python process/);
  });

  it('ends a memory bomb as killed for memory while other sessions keep working', async () => {
    const result = await withBystander(
      t.sandbox.run('mem', {
        language: 'python',
        code: 'blocks = []\nwhile True:\n    blocks.append("x" * (32 * 2**20))',
      }),
    );
    expect(result).toMatchObject({ status: 'killed', killReason: 'memory' });
    expect(result.stateReset?.reason).toMatch(/memory/);
    const after = await t.sandbox.run('mem', { language: 'python', code: '1 + 1' });
    expect(after.status).toBe('ok');
  });

  it('contains a fork bomb with the pids limit and the deadline', async () => {
    const result = await withBystander(
      t.sandbox.run('fork', { language: 'bash', code: 'bomb() { bomb | bomb & }; bomb; sleep 5', timeoutMs: 1500 }),
    );
    expect(['timeout', 'killed']).toContain(result.status);
    const after = await t.sandbox.run('fork', { language: 'bash', code: 'echo alive' });
    expect(after).toMatchObject({ status: 'ok', stdout: 'alive\n' });
    const python = await t.sandbox.run('fork', {
      language: 'python',
      code: 'import os\nwhile True:\n    os.fork()',
      timeoutMs: 1500,
    });
    expect(['error', 'timeout', 'killed']).toContain(python.status);
    // Under gVisor this bomb most often takes the Sentry past its host tasks within its own run: it panics, and the
    // result says so rather than blaming the interpreter.
    if (python.killReason === 'crash' && testRuntime() === 'runsc')
      expect(python.stateReset?.reason).toMatch(/^the sandbox's gVisor kernel stopped \(status 2\)/);
    const again = await t.sandbox.run('fork', { language: 'bash', code: 'sleep 0.5; ps -e --no-headers | wc -l' });
    expect(again.status).toBe('ok');
    expect(Number(again.stdout.trim())).toBeLessThan(8);
  });

  it('caps a 100 MB print, keeps head and tail, and saves the full output as a file', async () => {
    const result = await withBystander(
      t.sandbox.run('print', { language: 'python', code: 'print("HEAD" + "x" * 100_000_000 + "TAIL")' }),
    );
    expect(result.status).toBe('ok');
    expect(result.stdout.startsWith('HEAD')).toBe(true);
    expect(result.stdout.trimEnd().endsWith('TAIL')).toBe(true);
    expect(result.stdout.length).toBeLessThan(4096 + 200);
    expect(result.truncated?.stdoutBytes).toBeGreaterThan(99_000_000);
    const path = result.truncated?.fullOutputPath;
    expect(path).toMatch(/^\.threadlab\/output-\d+\.txt$/);
    expect(result.artifacts.map((a) => a.path)).toContain(path);
    const full = await t.sandbox.readFile('print', path!);
    expect(full.length).toBeGreaterThan(4 * 1024 * 1024 - 200);
    expect(full.subarray(0, 4).toString()).toBe('HEAD');
  });

  it('reports a crashed interpreter as killed and recovers', async () => {
    const result = await t.sandbox.run('crash', { language: 'python', code: 'import os\nos._exit(3)' });
    expect(result).toMatchObject({ status: 'killed', killReason: 'crash' });
    expect((await t.sandbox.run('crash', { language: 'python', code: '2' })).status).toBe('ok');
  });

  it('restores files into a new container when the old one is lost', async () => {
    await t.sandbox.run('lost', { language: 'python', code: 'open("data.csv", "w").write("a\\n1\\n")\nsecret = 5' });
    await t.sandbox.putFile('lost', 'upload.txt', Buffer.from('uploaded'));
    await t.sandbox.run('lost', { language: 'bash', code: 'rm upload.txt; echo b > other.txt' });
    const [info] = await docker.listContainers({
      filters: { label: [`dev.threadlab.instance=${t.instanceId}`], name: ['lost'] },
    });
    const all = await docker.listContainers({ filters: { label: [`dev.threadlab.instance=${t.instanceId}`] } });
    const lostHash = (await import('../../../src/domain/thread-key.js')).threadHash('lost');
    const target = info ?? all.find((c) => c.Labels['dev.threadlab.session'] === lostHash);
    await docker.getContainer(target!.Id).kill();
    await new Promise((r) => setTimeout(r, 300));
    expect(t.sandbox.isLive('lost')).toBe(false);
    const after = await t.sandbox.run('lost', { language: 'bash', code: 'ls; cat data.csv' });
    expect(after.stateReset?.reason).toBeTruthy();
    expect(after.stdout).toBe('data.csv\nother.txt\na\n1\n');
    const vars = await t.sandbox.run('lost', { language: 'python', code: '"secret" in globals()' });
    expect(vars.displays[0]?.data['text/plain']).toBe('False');
    expect(vars.stateReset).toBeUndefined();
  });
});

describe("gVisor's host tasks after fork bombs", () => {
  // Under gVisor's ptrace platform a sandbox's host tasks only grow with the processes the code made (stubs are
  // pooled, never ended), and at the host pids limit the Sentry panics on its next thread: a later, innocent run
  // would find its container dead. Bombs held to 16 processes leave 200-400 of the 640 host tasks this sandbox has
  // each, and the container is renewed once they pass the half (these bombs end at their deadline, whose sweep
  // leaves none for the run's own count of processes it stopped).
  let small: TestSandbox;
  const renewals: string[] = [];
  beforeAll(async () => {
    small = await makeSandbox('tasks', { memoryMb: 512, pids: 16, graceMs: 1000 }, undefined, {
      observer: { size() {}, sessions() {}, hit() {}, miss() {}, renewed: (reason) => renewals.push(reason) },
    });
  });
  afterAll(async () => {
    await small?.close();
  });

  it('renews the container after the run under runsc, variables saved and files kept; runc has no need', async () => {
    const before = await small.sandbox.run('bomb', {
      language: 'python',
      code: 'kept = 7\nopen("f.txt", "w").write("f")',
    });
    expect(before.status).toBe('ok');
    const [first] = await containersOf(small.instanceId);
    // Each bomb adds to what the last ones left; under runsc a few reach the half (on a loaded machine each bomb
    // forks less in its 1.5 s, and four were seen to stop at 320 of the 640). Under runc, four show that none renews.
    const bombs = testRuntime() === 'runsc' ? 10 : 4;
    for (let i = 0; i < bombs && renewals.length === 0; i++) {
      const bomb = await small.sandbox.run('bomb', {
        language: 'bash',
        code: 'bomb() { bomb | bomb & }; bomb; sleep 5',
        timeoutMs: 1500,
      });
      expect(['timeout', 'killed']).toContain(bomb.status);
      expect(bomb.stateReset).toBeUndefined(); // the renewal comes after the run: the next one says it
      await small.sandbox.listFiles('bomb'); // the thread's next turn: the check after the run is done by then
    }
    const after = await small.sandbox.run('bomb', { language: 'python', code: 'print(kept, open("f.txt").read())' });
    expect(after).toMatchObject({ status: 'ok', stdout: '7 f\n' });
    const now = await containersOf(small.instanceId);
    if (testRuntime() === 'runsc') {
      expect(renewals).toEqual(['host_tasks']);
      expect(after.stateRestored?.reason).toMatch(/renewed.*host tasks/);
      expect(now.map((c) => c.Id)).not.toContain(first!.Id);
    } else {
      expect(renewals).toEqual([]);
      expect(after.stateRestored).toBeUndefined();
      expect(now.map((c) => c.Id)).toContain(first!.Id);
    }
  });
});
