import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import {
  buildContainerSpec,
  CONTAINER_ENV,
  RUNSC_HOST_PIDS,
  runscMemoryHeadroomMb,
} from '../../../sandbox/container-spec.js';

const limits = {
  ...loadConfig({}).sandbox,
  memoryMb: 300,
  cpus: 1.5,
  pids: 99,
  nofile: 321,
  fileSizeMb: 7,
  dataMb: 40,
  tmpMb: 12,
};
const base = { image: 'img:1', limits, name: 'n', instanceId: 'inst', session: 'abc', hostname: 'h', ownerPid: 42 };
const spec = buildContainerSpec(base);
const host = spec.HostConfig!;

describe('buildContainerSpec', () => {
  it('isolates the container', () => {
    expect(spec).toMatchObject({
      Image: 'img:1',
      Hostname: 'sandbox',
      // The supervisor is root with three capabilities; the user's code runs as uid 1000 with none.
      User: '0:0',
      WorkingDir: '/mnt/data',
      NetworkDisabled: true,
      Tty: false,
      OpenStdin: true,
      StdinOnce: true,
    });
    expect(host).toMatchObject({
      NetworkMode: 'none',
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      CapAdd: ['CAP_SETUID', 'CAP_SETGID', 'CAP_SETPCAP'],
      Init: false,
      Privileged: false,
      Binds: [],
    });
    expect(host.SecurityOpt?.[0]).toBe('no-new-privileges:true');
    expect(host.SecurityOpt?.[1]).toMatch(/^seccomp=\{/);
  });

  it('applies every limit', () => {
    expect(host.Memory).toBe(300 * 2 ** 20);
    expect(host.MemorySwap).toBe(host.Memory);
    expect(host.NanoCpus).toBe(1.5e9);
    expect(host.PidsLimit).toBe(99);
    expect(host.Ulimits).toEqual([
      { Name: 'nofile', Soft: 321, Hard: 321 },
      { Name: 'fsize', Soft: 7 * 2 ** 20, Hard: 7 * 2 ** 20 },
      { Name: 'core', Soft: 0, Hard: 0 },
    ]);
    expect(host.Tmpfs?.['/mnt/data']).toContain('size=40m');
    expect(host.Tmpfs?.['/mnt/data']).toContain('uid=1000');
    expect(host.Tmpfs?.['/tmp']).toMatch(/nosuid,nodev.*size=12m/);
  });

  it('passes no host environment and labels the container', () => {
    process.env.THREADLAB_UNIT_CANARY = 'leak';
    const again = buildContainerSpec({
      image: 'i',
      limits,
      name: 'n',
      instanceId: 'inst',
      session: 'abc',
      hostname: 'h',
      ownerPid: 42,
    });
    expect(again.Env).toEqual([...CONTAINER_ENV, 'PYTHON_CPU_COUNT=2']);
    expect(JSON.stringify(again)).not.toContain('leak');
    delete process.env.THREADLAB_UNIT_CANARY;
    expect(spec.Labels).toEqual({
      'dev.threadlab.sandbox': '1',
      'dev.threadlab.instance': 'inst',
      'dev.threadlab.session': 'abc',
      'dev.threadlab.host': 'h',
      'dev.threadlab.pid': '42',
    });
  });

  it('runs under runc unless told, and under runsc keeps every flag, sizing pids for gVisor', () => {
    expect(host.Runtime).toBe('runc');
    expect(host.Ulimits!.map((u) => u.Name)).not.toContain('nproc');
    const gvisor = buildContainerSpec({ ...base, runtime: 'runsc' }).HostConfig!;
    expect(gvisor.Runtime).toBe('runsc');
    const same = ['NetworkMode', 'ReadonlyRootfs', 'Tmpfs', 'NanoCpus', 'CapDrop'] as const;
    for (const key of same) expect(gvisor[key]).toEqual(host[key]);
    // The supervisor applies the configured memory (its guard); the cgroup gets headroom for gVisor itself.
    const env = (spec: ReturnType<typeof buildContainerSpec>) =>
      spec.Env!.filter((e) => e.startsWith('THREADLAB_MEMORY_GUARD_MB='));
    expect(env(buildContainerSpec({ ...base, runtime: 'runsc' }))).toEqual(['THREADLAB_MEMORY_GUARD_MB=300']);
    expect(env(buildContainerSpec(base))).toEqual([]);
    expect(gvisor.Memory).toBe((300 + runscMemoryHeadroomMb(300)) * 2 ** 20);
    expect(gvisor.MemorySwap).toBe(gvisor.Memory);
    expect(runscMemoryHeadroomMb(300)).toBe(192);
    expect(runscMemoryHeadroomMb(4096)).toBe(1024);
    expect(gvisor.SecurityOpt![0]).toBe('no-new-privileges:true');
    // The profile differs in clone3 only (gVisor ignores errnoRet; see sandbox/seccomp.ts).
    const profile = (opt: string) =>
      JSON.parse(opt.replace(/^seccomp=/, '')) as { syscalls: { names: string[]; action: string }[] };
    const runc3 = profile(host.SecurityOpt![1]!).syscalls.find((r) => r.names.includes('clone3'));
    const runsc3 = profile(gvisor.SecurityOpt![1]!).syscalls.find((r) => r.names.includes('clone3'));
    expect(runc3?.action).toBe('SCMP_ACT_ERRNO');
    expect(runsc3?.action).toBe('SCMP_ACT_ALLOW');
    expect(profile(gvisor.SecurityOpt![1]!).syscalls.filter((r) => !r.names.includes('clone3'))).toEqual(
      profile(host.SecurityOpt![1]!).syscalls.filter((r) => !r.names.includes('clone3')),
    );
    expect(gvisor.PidsLimit).toBe(RUNSC_HOST_PIDS.base + RUNSC_HOST_PIDS.perTask * 99);
    expect(gvisor.Ulimits).toEqual([{ Name: 'nproc', Soft: 99, Hard: 99 }, ...host.Ulimits!]);
  });
});
