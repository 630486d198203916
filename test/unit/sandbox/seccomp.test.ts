import { describe, expect, it } from 'vitest';
import {
  ALLOWED_SOCKET_FAMILIES,
  buildSeccompProfile,
  CLONE_NAMESPACE_MASK,
  DENIED_SYSCALLS,
  seccompSecurityOpt,
} from '../../../sandbox/seccomp.js';

const profile = buildSeccompProfile();
const unconditional = new Set(
  profile.syscalls.filter((r) => r.action === 'SCMP_ACT_ALLOW' && !r.args).flatMap((r) => r.names),
);
const rulesFor = (name: string) => profile.syscalls.filter((r) => r.names.includes(name));

describe('seccomp profile', () => {
  it('denies by default with EPERM', () => {
    expect(profile.defaultAction).toBe('SCMP_ACT_ERRNO');
    expect(profile.defaultErrnoRet).toBe(1);
  });

  it('never allows the dangerous syscalls', () => {
    for (const name of DENIED_SYSCALLS) {
      expect(
        rulesFor(name).filter((r) => r.action === 'SCMP_ACT_ALLOW'),
        name,
      ).toEqual([]);
    }
  });

  it('allows what Python, bash and the data stack need', () => {
    for (const name of [
      'read',
      'write',
      'openat',
      'mmap',
      'futex',
      'execve',
      'wait4',
      'pipe2',
      'epoll_wait',
      'getrandom',
      'rseq',
      'kill',
    ]) {
      expect(unconditional.has(name), name).toBe(true);
    }
  });

  it('allows socket() only for AF_UNIX, AF_INET and AF_INET6', () => {
    const socket = rulesFor('socket');
    expect(
      socket.every((r) => r.action === 'SCMP_ACT_ALLOW' && r.args?.length === 1 && r.args[0]?.op === 'SCMP_CMP_EQ'),
    ).toBe(true);
    expect(socket.map((r) => r.args?.[0]?.value).sort()).toEqual(Object.values(ALLOWED_SOCKET_FAMILIES).sort());
  });

  it('allows mknod and mknodat for files, FIFOs and sockets only: never block or character devices', () => {
    for (const [name, index] of [
      ['mknod', 1],
      ['mknodat', 2],
    ] as const) {
      expect(unconditional.has(name), name).toBe(false);
      const rules = rulesFor(name);
      expect(rules.every((r) => r.action === 'SCMP_ACT_ALLOW' && r.args?.length === 1)).toBe(true);
      const allowed = (mode: number) =>
        rules.some((r) => {
          const arg = r.args![0]!;
          return arg.index === index && arg.op === 'SCMP_CMP_MASKED_EQ' && (mode & arg.value) === arg.valueTwo;
        });
      expect(allowed(0o010644), 'FIFO').toBe(true);
      expect(allowed(0o100644), 'regular').toBe(true);
      expect(allowed(0o000644), 'no type (regular)').toBe(true);
      expect(allowed(0o140755), 'socket').toBe(true);
      expect(allowed(0o060600), 'block device').toBe(false);
      expect(allowed(0o020600), 'character device').toBe(false);
    }
    expect(rulesFor('mknod')).toEqual(
      buildSeccompProfile({ runtime: 'runsc' }).syscalls.filter((r) => r.names.includes('mknod')),
    );
  });

  it('allows clone only without namespace flags, and makes clone3 fall back', () => {
    const [clone] = rulesFor('clone');
    expect(clone?.args).toEqual([{ index: 0, value: CLONE_NAMESPACE_MASK, valueTwo: 0, op: 'SCMP_CMP_MASKED_EQ' }]);
    expect(CLONE_NAMESPACE_MASK & 0x10000000).toBeTruthy(); // CLONE_NEWUSER
    expect(CLONE_NAMESPACE_MASK & 0x40000000).toBeTruthy(); // CLONE_NEWNET
    expect(rulesFor('clone3')).toEqual([{ names: ['clone3'], action: 'SCMP_ACT_ERRNO', errnoRet: 38 }]);
  });

  it('restricts personality to safe values', () => {
    const values = rulesFor('personality').map((r) => r.args?.[0]?.value);
    expect(values).not.toContain(0x0040000); // ADDR_NO_RANDOMIZE
    expect(values).toContain(0);
  });

  it('serialises as a SecurityOpt entry', () => {
    const opt = seccompSecurityOpt();
    expect(opt.startsWith('seccomp={')).toBe(true);
    expect(JSON.parse(opt.slice('seccomp='.length))).toEqual(profile);
  });
});
