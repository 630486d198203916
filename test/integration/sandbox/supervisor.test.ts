import { readlinkSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threadHash } from '../../../src/domain/thread-key.js';
import { containersOf, docker, makeSandbox, testRuntime, type TestSandbox } from './helpers.js';

/**
 * The split between the supervisor (owns the bot's protocol, uid 0 with four capabilities, not dumpable)
 * and the kernel (runs the user's code as uid 1000 with none), tried the way an attacker would.
 */
let t: TestSandbox;
beforeAll(async () => {
  t = await makeSandbox('sup', { memoryMb: 512, pids: 64, graceMs: 1000 });
});
afterAll(async () => {
  await t?.close();
});

const run = (key: string, code: string, language: 'python' | 'bash' = 'python') =>
  t.sandbox.run(key, { language, code });

async function ok(key: string, code: string, language: 'python' | 'bash' = 'python') {
  const result = await run(key, code, language);
  expect(result.error, result.error?.traceback).toBeUndefined();
  return result;
}

/** The engine's id of a session's container. */
async function containerOf(instanceId: string, key: string): Promise<string> {
  const all = await containersOf(instanceId);
  const found = all.filter((c) => c.Labels['dev.threadlab.session'] === threadHash(key));
  expect(found).toHaveLength(1);
  return found[0]!.Id;
}

/**
 * The container's attached stdio (the bot's protocol), read from the host: fds 0-2 of its init, which the
 * supervisor inherited and duplicated.
 */
async function protocolPipes(containerId: string): Promise<Set<string>> {
  const init = (await docker.getContainer(containerId).inspect()).State.Pid;
  const links = [0, 1, 2].map((fd) => readlinkSync(`/proc/${init}/fd/${fd}`));
  expect(
    links.every((l) => /^(pipe|socket):/.test(l)),
    links.join(),
  ).toBe(true);
  return new Set(links);
}

describe('the user cannot reach the protocol or the supervisor', () => {
  it('holds none of the protocol descriptors; forged frames on every reachable descriptor are harmless', async () => {
    await ok('fd', 'open("real.txt", "w").write("r")');
    // Under runc the container's stdio is readable from the host; under gVisor the host sees its sandbox
    // process instead, and the shape of the kernel's descriptors (below) is what is checked.
    const protocol = testRuntime() === 'runc' ? await protocolPipes(await containerOf(t.instanceId, 'fd')) : new Set();
    const forged = [
      { type: 'ready', python: '0', packages: {} },
      { type: 'files', files: [{ path: 'forged.txt', bytes: 1, mime: 'text/plain', modifiedMs: 1 }] },
      { type: 'display', data: { 'text/plain': 'FORGED' } },
      {
        type: 'result',
        status: 'ok',
        executionCount: 99,
        durationMs: 1,
        stdout: 'FORGED',
        stderr: '',
        artifacts: [{ path: 'forged.txt', bytes: 1, mime: 'text/plain', change: 'created' }],
        deleted: ['real.txt'],
      },
    ];
    // Every id the bot could be waiting on. (A `done` for the run's own id would only end the user's own run.)
    const lines = Array.from({ length: 40 }, (_, i) => forged.map((f) => JSON.stringify({ ...f, id: String(i) })))
      .flat()
      .join('\n');
    const result = await run(
      'fd',
      [
        'import os, json',
        'fds = {}',
        'for n in os.listdir("/proc/self/fd"):',
        '    try:\n        fds[int(n)] = os.readlink(f"/proc/self/fd/{n}")',
        "    except OSError:\n        pass  # the listing's own descriptor",
        'print("FDS", json.dumps(fds))',
        `lines = (${JSON.stringify(lines)} + "\\n").encode()`,
        'written = 0',
        "for fd in range(24):  # the kernel's own descriptors, and any of init's or the supervisor's it can open",
        '    for path in (f"/proc/self/fd/{fd}", f"/proc/1/fd/{fd}", f"/proc/{os.getppid()}/fd/{fd}"):',
        '        try:',
        '            w = os.open(path, os.O_WRONLY)',
        '        except OSError:',
        '            continue',
        '        try:',
        // A line over the supervisor's frame limit, then valid frames again; stdout and stderr get frames only.
        '            data = lines + (b"x" * (40 << 20) + b"\\n" + lines if fd > 2 else b"")',
        '            view = memoryview(data)',
        '            while view:\n                view = view[os.write(w, view):]',
        '            written += 1',
        '        except OSError:',
        '            pass',
        '        os.close(w)',
        'print("written", written, "after")',
      ].join('\n'),
    );
    const fds = JSON.parse(/FDS (.*)/.exec(result.stdout)?.[1] ?? '{}') as Record<string, string>;
    // /dev/null, stdout and stderr (read by the supervisor), the kernel's command and frame pipes: no more.
    expect(Object.values(fds)).toHaveLength(5);
    expect(fds['0']).toBe('/dev/null');
    for (const target of Object.values(fds)) expect(protocol.has(target), target).toBe(false);
    expect(result.status).toBe('ok');
    expect(result.stdout).toMatch(/written \d+ after/);
    // A display with the run's own id is the user's to show (once before and once after the oversized line,
    // which is dropped without losing the framing); the 78 with other ids are dropped.
    // Under gVisor the frames pipe is also reachable as the supervisor's own descriptor: twice as many.
    expect(result.displays.filter((d) => d.data['text/plain'] === 'FORGED')).toHaveLength(
      testRuntime() === 'runc' ? 2 : 4,
    );
    expect(result.artifacts.map((a) => a.path)).not.toContain('forged.txt');
    expect(result.executionCount).toBe(2);
    // Frames written to stdout are output like any other (over the cap here, so saved to a file).
    expect((await t.sandbox.listFiles('fd')).map((f) => f.path)).toEqual(['.threadlab/output-1.txt', 'real.txt']);
    expect(result.stdout).toContain('{"type":"ready","python":"0"');
    const next = await ok('fd', 'print("next")');
    expect(next).toMatchObject({ status: 'ok', stdout: 'next\n', executionCount: 3 });
    expect((await t.sandbox.readFile('fd', 'real.txt')).toString()).toBe('r');
  });

  it('cannot open the memory of the supervisor or init, nor signal or trace them', async () => {
    const result = await ok(
      'mem',
      [
        'import ctypes, os, signal',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'sup = os.getppid()',
        'print("supervisor uid", [l.split()[1] for l in open(f"/proc/{sup}/status") if l.startswith("Uid")][0])',
        'for pid in (1, sup):',
        '    for path in (f"/proc/{pid}/mem", f"/proc/{pid}/environ", f"/proc/{pid}/fd/0"):',
        '        try:\n            open(path, "rb").close(); print("OPENED", path.split("/")[-1])',
        '        except OSError as e:\n            print("refused", e.errno)',
        '    for sig in (0, signal.SIGKILL, signal.SIGSTOP):',
        '        try:\n            os.kill(pid, sig); print("SIGNALLED", pid, sig)',
        '        except OSError as e:\n            print("refused", e.errno)',
        '    r = libc.syscall(101, 16, pid, 0, 0)',
        '    print("ptrace", r, ctypes.get_errno())',
      ].join('\n'),
    );
    expect(result.stdout).toContain('supervisor uid 0');
    expect(result.stdout).not.toMatch(/SIGNALLED|OPENED mem/);
    expect(result.stdout.match(/ptrace -1 1/g)).toHaveLength(2);
    if (testRuntime() === 'runc') {
      expect(result.stdout).not.toContain('OPENED');
      expect(result.stdout.match(/refused (1|13)/g)).toHaveLength(12);
    } else {
      // gVisor's procfs (20221219) checks a file's own mode, not ptrace access, for environ and fd/N: the
      // environment is the container's own, and the protocol's descriptors stay refused (see the forging test).
      expect(result.stdout.match(/refused 1\b/g)).toHaveLength(6);
      expect(result.stdout.match(/refused 13/g)?.length).toBeGreaterThanOrEqual(2);
    }
    expect((await ok('mem', 'print("alive")')).stdout).toBe('alive\n');
  });
});

describe('nothing a run starts outlives it', () => {
  it('stops a detached daemon and a double-forked setsid child when the run ends, and says how many', async () => {
    const result = await ok(
      'daemon',
      [
        'import subprocess',
        'subprocess.Popen(["sleep", "1000"], start_new_session=True, stdout=subprocess.DEVNULL)',
        // A double fork: the subshell starts a setsid sleep in the background and exits before sh returns.
        'subprocess.run("(setsid sleep 1001 &); true", shell=True)',
        'print("started")',
      ].join('\n'),
    );
    expect(result.stoppedProcesses).toBe(2);
    const bash = await ok('daemon', 'nohup sleep 1002 >/dev/null 2>&1 &\necho spawned', 'bash');
    expect(bash.stoppedProcesses).toBe(1);
    const after = await ok('daemon', 'ps -eo uid=,args= | grep -c "[s]leep 100" || true', 'bash');
    expect(after.stdout.trim()).toBe('0');
    expect(after.stoppedProcesses).toBeUndefined();
  });

  it('never attributes output printed after a run ended to the next run', async () => {
    await ok(
      'leak',
      'import subprocess\nsubprocess.Popen(["bash", "-c", "while true; do echo LEAK; sleep 0.01; done"], start_new_session=True)',
    );
    const next = await ok('leak', 'import time\ntime.sleep(0.5)\nprint("mine")');
    expect(next.stdout).toBe('mine\n');
  });

  it('says how much a thread left running printed between runs, without showing it as output of the next run', async () => {
    await ok(
      'thread',
      'import threading, time\nthreading.Thread(target=lambda: (time.sleep(0.2), print("LATE" * 10)), daemon=True).start()',
    );
    await new Promise((resolve) => setTimeout(resolve, 600));
    const next = await ok('thread', 'print("mine")');
    expect(next.stdout).toBe('mine\n');
    expect(next.stderr).toContain('[threadlab: 41 bytes printed after the previous run ended');
    expect((await ok('thread', 'print("again")')).stderr).toBe('');
  });
});

describe('a kernel that dies comes back in the same container', () => {
  it('after os._exit and a segfault: files and /tmp intact, variables reset, reported once', async () => {
    await ok('crash', 'open("/tmp/marker", "w").write("m")\nopen("kept.txt", "w").write("k")\nv = 1');
    const container = await containerOf(t.instanceId, 'crash');
    const exited = await run('crash', 'import os\nos._exit(3)');
    expect(exited).toMatchObject({ status: 'killed', killReason: 'crash' });
    expect(exited.stateReset?.reason).toMatch(/status 3.*same sandbox/);
    const segv = await run('crash', 'v = 2\nimport ctypes\nctypes.string_at(0)');
    expect(segv).toMatchObject({ status: 'killed', killReason: 'crash' });
    expect(segv.stateReset?.reason).toMatch(/SIGSEGV/);
    const after = await ok('crash', 'print(open("/tmp/marker").read(), open("kept.txt").read(), "v" in globals())');
    expect(after).toMatchObject({ stdout: 'm k False\n', executionCount: 1 });
    expect(after.stateReset).toBeUndefined();
    expect(await containerOf(t.instanceId, 'crash')).toBe(container);
  });

  it('between runs too: a thread that ends the kernel after its run is reported by the next run', async () => {
    await ok(
      'late',
      'open("/tmp/marker", "w").write("m")\nv = 1\nimport os, threading, time\n' +
        'threading.Thread(target=lambda: (time.sleep(0.2), os._exit(5)), daemon=True).start()',
    );
    await new Promise((resolve) => setTimeout(resolve, 600));
    const next = await ok('late', 'print(open("/tmp/marker").read(), "v" in globals())');
    expect(next).toMatchObject({ status: 'ok', stdout: 'm False\n', executionCount: 1 });
    expect(next.stateReset?.reason).toMatch(/status 5.*same sandbox/);
  });
  // How long the comeback takes against a new container: test/integration/sandbox/kernel-restart-timing.test.ts.
});

describe('a kernel killed for memory', () => {
  let small: TestSandbox;
  beforeAll(async () => {
    small = await makeSandbox('sup-oom', { memoryMb: 320, graceMs: 1000 });
  });
  afterAll(async () => {
    await small?.close();
  });

  it('comes back in the same container with files intact and says it ran out of memory', async () => {
    const sandbox = small.sandbox;
    const first = await sandbox.run('oom', {
      language: 'python',
      code: 'open("/tmp/marker", "w").write("m")\nopen("kept.txt", "w").write("k")\nv = 1',
    });
    expect(first.status).toBe('ok');
    const container = await containerOf(small.instanceId, 'oom');
    const bomb = await sandbox.run('oom', {
      language: 'python',
      code: 'blocks = []\nwhile True:\n    blocks.append(bytearray(16 * 2**20))',
    });
    expect(bomb).toMatchObject({ status: 'killed', killReason: 'memory' });
    const after = await sandbox.run('oom', {
      language: 'python',
      code: 'import os\nprint(os.path.exists("/tmp/marker"), open("kept.txt").read(), "v" in globals())',
    });
    // The same under both runtimes: under runc the cgroup's OOM killer takes the kernel; under gVisor (where the
    // host sees one sandbox) the supervisor's memory guard does, inside the headroom the container gets.
    expect(bomb.stateReset?.reason).toMatch(/out of memory.*same sandbox/);
    expect(after).toMatchObject({ status: 'ok', stdout: 'True k False\n' });
    expect(await containerOf(small.instanceId, 'oom')).toBe(container);
  });

  it('takes the process that holds the memory, like the OOM killer: a child dies, the kernel and its variables stay', async () => {
    const sandbox = small.sandbox;
    await sandbox.run('oom-child', { language: 'python', code: 'v = 41' });
    const run = await sandbox.run('oom-child', {
      language: 'python',
      code:
        'import subprocess, sys\n' +
        "r = subprocess.run([sys.executable, '-c', 'b = []\\nwhile True: b.append(bytearray(16 * 2**20))'])\n" +
        'print(r.returncode, v + 1)',
    });
    expect(run).toMatchObject({ status: 'ok', stdout: '-9 42\n' });
    expect(run.stateReset).toBeUndefined();
  });
});
