import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containersOf, docker, makeSandbox, testRuntime, type TestSandbox } from './helpers.js';
import { runscMemoryHeadroomMb } from '../../../sandbox/container-spec.js';

let t: TestSandbox;
beforeAll(async () => {
  t = await makeSandbox('iso', { nofile: 256, fileSizeMb: 32, memoryMb: 384, pids: 48, cpus: 0.5 });
});
afterAll(async () => {
  await t?.close();
});

const py = async (code: string) => {
  const result = await t.sandbox.run('iso', { language: 'python', code });
  expect(result.error, result.error?.traceback).toBeUndefined();
  return result.stdout.trim();
};

const runtime = testRuntime();

describe(`sandbox isolation (enforced by the engine, ${runtime})`, () => {
  it('has no network', async () => {
    const out = await py(
      [
        'import socket, os',
        'try:\n    socket.create_connection(("1.1.1.1", 53), timeout=2); print("connected")',
        'except OSError as e:\n    print("blocked", e.errno)',
        'print(sorted(os.listdir("/sys/class/net")))',
      ].join('\n'),
    );
    expect(out).toMatch(/^blocked \d+/);
    expect(out).toContain("['lo']");
  });

  it('cannot write outside /mnt/data and /tmp', async () => {
    const out = await py(
      [
        'import os',
        'for p in ["/etc/x", "/x", "/opt/threadlab/runner/x.py", "/usr/lib/python3/dist-packages/x.py", "/var/tmp/x", "/mnt/x"]:',
        '    try:\n        open(p, "w").write("x"); print("WROTE", p)',
        '    except OSError as e:\n        print("denied", p, e.errno)',
        'open("/tmp/ok", "w").write("x"); open("/mnt/data/ok", "w").write("x"); print("ok")',
      ].join('\n'),
    );
    expect(out).not.toContain('WROTE');
    expect(out.split('\n').filter((l) => l.startsWith('denied'))).toHaveLength(6);
    expect(out.endsWith('ok')).toBe(true);
  });

  it('runs as uid 1000 without capabilities, with no-new-privs and seccomp', async () => {
    const out = await py(
      // PR_GET_NO_NEW_PRIVS rather than /proc/self/status, which gVisor does not fill with NoNewPrivs.
      'import ctypes, os\nst = dict(l.split(":\\t", 1) for l in open("/proc/self/status").read().splitlines() if ":\\t" in l)\n' +
        'nnp = ctypes.CDLL(None).prctl(39, 0, 0, 0, 0)\n' +
        'print(os.getuid(), os.getgid(), st["CapEff"].strip(), st["CapBnd"].strip(), nnp, st["Seccomp"].strip(), os.uname().nodename)',
    );
    expect(out).toBe('1000 1000 0000000000000000 0000000000000000 1 2 sandbox');
  });

  it('refuses io_uring, netlink/packet sockets, user namespaces and ptrace', async () => {
    const out = await py(
      [
        'import ctypes, os, socket',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'def sc(n, *a):\n    r = libc.syscall(n, *a); return "ok" if r >= 0 else f"errno{ctypes.get_errno()}"',
        'params = ctypes.create_string_buffer(120)',
        'print("io_uring_setup", sc(425, 8, params))',
        'print("unshare_user", sc(272, 0x10000000))',
        'print("ptrace", sc(101, 16, os.getppid(), 0, 0))',
        'print("bpf", sc(321, 0, 0, 0))',
        'print("userfaultfd", sc(323, 0))',
        'print("keyctl", sc(250, 0, 0, 0))',
        'for fam in (16, 17):',
        '    try:\n        socket.socket(fam, socket.SOCK_RAW); print("socket", fam, "ok")',
        '    except OSError as e:\n        print("socket", fam, f"errno{e.errno}")',
        'socket.socket(socket.AF_UNIX).close(); socket.socket(socket.AF_INET).close(); print("inet ok")',
        'print("fork", "ok" if os.fork() == 0 and os._exit(0) is None else "ok")',
      ].join('\n'),
    );
    expect(out).toContain('io_uring_setup errno1');
    expect(out).toContain('unshare_user errno1');
    expect(out).toContain('ptrace errno1');
    expect(out).toContain('bpf errno1');
    expect(out).toContain('userfaultfd errno1');
    expect(out).toContain('keyctl errno1');
    expect(out).toContain('socket 16 errno1');
    expect(out).toContain('socket 17 errno1');
    expect(out).toContain('inet ok');
    expect(out).toContain('fork ok');
  });

  it('makes no device nodes and has no /dev/fuse or /dev/net/tun (issue 26, item 11)', async () => {
    const out = await py(
      [
        'import os, stat',
        'for where in ("/mnt/data", "/tmp"):',
        '    for kind, mode, dev in (("block", stat.S_IFBLK, os.makedev(7, 0)), ("char", stat.S_IFCHR, os.makedev(10, 229)), ("fifo", stat.S_IFIFO, 0)):',
        '        path = f"{where}/node-{kind}"',
        '        try:\n            os.mknod(path, mode | 0o600, dev); print("made", kind, where)',
        '        except OSError as e:\n            print("refused", kind, where, e.errno)',
        '        dirfd = os.open(where, os.O_RDONLY)',
        '        try:\n            os.mknod(f"at-{kind}", mode | 0o600, dev, dir_fd=dirfd); print("made at", kind, where)',
        '        except OSError as e:\n            print("refused at", kind, where, e.errno)',
        '        finally:\n            os.close(dirfd)',
        'for dev in ("/dev/fuse", "/dev/net/tun", "/dev/net"):',
        '    print(dev, "present" if os.path.lexists(dev) else "absent")',
      ].join('\n'),
    );
    for (const where of ['/mnt/data', '/tmp']) {
      for (const kind of ['block', 'char']) {
        expect(out).toContain(`refused ${kind} ${where} 1`);
        expect(out).toContain(`refused at ${kind} ${where} 1`);
      }
      expect(out).toContain(`made fifo ${where}`);
      expect(out).toContain(`made at fifo ${where}`);
    }
    expect(out).toContain('/dev/fuse absent');
    expect(out).toContain('/dev/net/tun absent');
    expect(out).toContain('/dev/net absent');
    const info = await docker.getContainer((await containersOf(t.instanceId))[0]!.Id).inspect();
    for (const mount of ['/tmp', '/mnt/data']) expect(info.HostConfig.Tmpfs?.[mount]).toMatch(/(^|,)nodev(,|$)/);
  });

  it('enforces memory without swap, cpu, pids, nofile, fsize, core and the /mnt/data and /tmp quotas', async () => {
    // runc: the container's cgroups are visible inside. runsc: gVisor shows no cgroup files; the memory
    // limit is its MemTotal, the engine's cgroups hold the whole sandbox, and the code's task limit is
    // RLIMIT_NPROC (see RUNSC_HOST_PIDS in sandbox/container-spec.ts).
    const view =
      runtime === 'runc'
        ? [
            'cg = lambda p: open("/sys/fs/cgroup/" + p).read().strip()',
            'print("mem", cg("memory/memory.limit_in_bytes"), cg("memory/memory.memsw.limit_in_bytes") if os.path.exists("/sys/fs/cgroup/memory/memory.memsw.limit_in_bytes") else "n/a")',
            'print("cpu", cg("cpu/cpu.cfs_quota_us"), cg("cpu/cpu.cfs_period_us"))',
            'print("pids", cg("pids/pids.max"))',
          ]
        : [
            // The cgroup holds the limit plus gVisor's headroom; the supervisor's guard applies the limit itself.
            'print("mem", os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") - ' +
              `${runscMemoryHeadroomMb(384) * 2 ** 20}, "n/a")`,
            'print("guard", os.environ.get("THREADLAB_MEMORY_GUARD_MB"))',
            'print("pids", resource.getrlimit(resource.RLIMIT_NPROC)[0])',
          ];
    const out = await py(
      [
        'import resource, os, shutil',
        ...view,
        'print("nofile", *resource.getrlimit(resource.RLIMIT_NOFILE))',
        'print("fsize", *resource.getrlimit(resource.RLIMIT_FSIZE))',
        'print("core", *resource.getrlimit(resource.RLIMIT_CORE))',
        'print("data", shutil.disk_usage("/mnt/data").total // 2**20, "tmp", shutil.disk_usage("/tmp").total // 2**20)',
        'try:\n    open("/tmp/big", "wb").write(b"x" * (20 * 2**20)); print("tmp over quota written")',
        'except OSError as e:\n    print("tmp quota", e.errno)',
        'os.remove("/tmp/big")',
        // Starts processes until the task limit refuses one: before 48 tasks (the runner has some). Small
        // processes (sleep), so that the memory limit is not what stops them: under gVisor a forked copy
        // of the runner costs ~25 MB.
        'import subprocess\nkids = []',
        'try:\n    for _ in range(60):\n        kids.append(subprocess.Popen(["sleep", "30"]))',
        'except OSError as e:\n    print("fork refused", e.errno)',
        'print("forked", len(kids))',
        'for kid in kids:\n    kid.kill(); kid.wait()',
      ].join('\n'),
    );
    expect(out).toContain(`mem ${384 * 2 ** 20} `);
    expect(out).toMatch(new RegExp(`mem \\d+ (${384 * 2 ** 20}|n/a)`));
    if (runtime === 'runc') expect(out).toContain('cpu 50000 100000');
    else expect(out).toContain('guard 384');
    expect(out).toContain('pids 48');
    expect(out).toContain('fork refused 11');
    expect(Number(/forked (\d+)/.exec(out)?.[1])).toBeLessThan(48);
    expect(out).toContain('nofile 256 256');
    expect(out).toContain(`fsize ${32 * 2 ** 20} ${32 * 2 ** 20}`);
    expect(out).toContain('core 0 0');
    expect(out).toContain('data 64 tmp 16');
    expect(out).toContain('tmp quota 28');
    // The engine holds the whole container (under runsc: gVisor's kernel and the code) to these.
    const [info] = await containersOf(t.instanceId);
    const host = (await docker.getContainer(info!.Id).inspect()).HostConfig;
    const cgroupMb = runtime === 'runsc' ? 384 + runscMemoryHeadroomMb(384) : 384;
    // Under gVisor the engine's runtime may be the platform's own (runsc-ptrace), as the runtime choice says.
    expect(t.sandbox.runtime?.engineRuntime).toMatch(new RegExp(`^${runtime}(-[a-z]+)?$`));
    expect(host).toMatchObject({
      Runtime: t.sandbox.runtime?.engineRuntime,
      Memory: cgroupMb * 2 ** 20,
      MemorySwap: cgroupMb * 2 ** 20,
      NanoCpus: 5e8,
    });
    const fsize = await t.sandbox.run('iso', {
      language: 'python',
      code: 'open("big.bin", "wb").write(b"x" * (40 * 2**20))',
    });
    expect(fsize.error?.value).toMatch(/too large/i);
  });

  it('labels containers and mounts no Docker socket', async () => {
    const [info] = await containersOf(t.instanceId);
    expect(info?.Labels).toMatchObject({ 'dev.threadlab.sandbox': '1', 'dev.threadlab.instance': t.instanceId });
    expect(info?.Labels['dev.threadlab.session']).toMatch(/^[0-9a-f]{24}$/);
    const inspect = await docker.getContainer(info!.Id).inspect();
    expect(inspect.Mounts).toEqual([]);
    expect(inspect.HostConfig).toMatchObject({
      NetworkMode: 'none',
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      Privileged: false,
    });
    const out = await py(
      'import os\nprint(os.path.exists("/var/run/docker.sock"), os.path.exists("/run/docker.sock"))',
    );
    expect(out).toBe('False False');
  });
});
