/**
 * The sandbox's seccomp profile: an allowlist derived from Docker's default profile
 * (moby/moby profiles/seccomp/default.json) and tighter than it. Everything not listed fails with EPERM.
 */

/** A seccomp profile in the JSON shape the Docker engine accepts in `SecurityOpt: ["seccomp=…"]`. */
export interface SeccompProfile {
  defaultAction: 'SCMP_ACT_ERRNO';
  defaultErrnoRet: number;
  archMap: { architecture: string; subArchitectures: string[] }[];
  syscalls: SeccompRule[];
}

export interface SeccompRule {
  names: string[];
  action: 'SCMP_ACT_ALLOW' | 'SCMP_ACT_ERRNO';
  errnoRet?: number;
  args?: { index: number; value: number; valueTwo?: number; op: string }[];
}

const EPERM = 1;
const ENOSYS = 38;

/** Socket families a data-analysis sandbox may create (there is no network anyway); others get EPERM. */
export const ALLOWED_SOCKET_FAMILIES = { AF_UNIX: 1, AF_INET: 2, AF_INET6: 10 } as const;

/** clone(2) flags that create namespaces: CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET. */
export const CLONE_NAMESPACE_MASK = 0x7e020000;

/** The file-type bits of a mode (S_IFMT) and the types mknod(2) may create: regular files, FIFOs and sockets. */
const S_IFMT = 0o170000;
export const MKNOD_ALLOWED_TYPES = { regular: 0, S_IFREG: 0o100000, S_IFIFO: 0o010000, S_IFSOCK: 0o140000 } as const;

/** personality(2) values glibc and Python use: PER_LINUX, PER_LINUX32, UNAME26 variants, query. */
const SAFE_PERSONALITIES = [0x0, 0x8, 0x20000, 0x20008, 0xffffffff];

/**
 * Docker's unconditional allowlist, minus what a sandbox never needs: io_uring, ptrace and
 * process_vm_*, fanotify, name_to_handle_at, socketcall (it would bypass the socket() filter),
 * clock adjustment, remap_file_pages. mknod and mknodat are allowed below for files, FIFOs and sockets only. bpf, perf_event_open, userfaultfd, keyctl/add_key/request_key,
 * mount, unshare and setns are absent from both lists.
 */
const ALLOWED = `accept accept4 access alarm bind brk capget capset chdir chmod chown clock_getres
clock_getres_time64 clock_gettime clock_gettime64 clock_nanosleep clock_nanosleep_time64 close close_range
connect copy_file_range creat dup dup2 dup3 epoll_create epoll_create1 epoll_ctl epoll_pwait epoll_pwait2
epoll_wait eventfd eventfd2 execve execveat exit exit_group faccessat faccessat2 fadvise64 fallocate fchdir
fchmod fchmodat fchown fchownat fcntl fdatasync fgetxattr flistxattr flock fork fremovexattr fsetxattr fstat
fstatfs fsync ftruncate futex futex_time64 futex_waitv futimesat getcpu getcwd getdents getdents64 getegid
geteuid getgid getgroups getitimer getpeername getpgid getpgrp getpid getppid getpriority getrandom getresgid
getresuid getrlimit get_robust_list getrusage getsid getsockname getsockopt gettid gettimeofday getuid getxattr
inotify_add_watch inotify_init inotify_init1 inotify_rm_watch io_cancel ioctl io_destroy io_getevents
io_pgetevents ioprio_get ioprio_set io_setup io_submit ipc kill lchown lgetxattr link linkat listen listxattr
llistxattr lremovexattr lseek lsetxattr lstat madvise membarrier memfd_create mincore mkdir mkdirat mlock mlock2 mlockall mmap mprotect mq_getsetattr mq_notify mq_open mq_timedreceive mq_timedsend
mq_unlink mremap msgctl msgget msgrcv msgsnd msync munlock munlockall munmap nanosleep newfstatat open openat
openat2 pause pidfd_open pidfd_send_signal pipe pipe2 pkey_alloc pkey_free pkey_mprotect poll ppoll
ppoll_time64 prctl pread64 preadv preadv2 prlimit64 pselect6 pselect6_time64 pwrite64 pwritev pwritev2 read
readahead readlink readlinkat readv recvfrom recvmmsg recvmmsg_time64 recvmsg removexattr rename renameat
renameat2 restart_syscall rmdir rseq rt_sigaction rt_sigpending rt_sigprocmask rt_sigqueueinfo rt_sigreturn
rt_sigsuspend rt_sigtimedwait rt_sigtimedwait_time64 rt_tgsigqueueinfo sched_getaffinity sched_getattr
sched_getparam sched_get_priority_max sched_get_priority_min sched_getscheduler sched_rr_get_interval
sched_setaffinity sched_setattr sched_setparam sched_setscheduler sched_yield seccomp select semctl semget
semop semtimedop semtimedop_time64 sendfile sendmmsg sendmsg sendto setfsgid setfsuid setgid setgroups
setitimer setpgid setpriority setregid setresgid setresuid setreuid setrlimit set_robust_list setsid
setsockopt set_thread_area set_tid_address setuid setxattr shmat shmctl shmdt shmget shutdown sigaltstack
signalfd signalfd4 socketpair splice stat statfs statx symlink symlinkat sync sync_file_range syncfs sysinfo
tee tgkill time timer_create timer_delete timer_getoverrun timer_gettime timer_gettime64 timer_settime
timer_settime64 timerfd_create timerfd_gettime timerfd_gettime64 timerfd_settime timerfd_settime64 times tkill
truncate umask uname unlink unlinkat utime utimensat utimensat_time64 utimes vfork wait4 waitid write writev
arch_prctl`
  .split(/\s+/)
  .filter(Boolean);

/** Syscalls the profile must never allow, checked by the unit tests. */
export const DENIED_SYSCALLS = [
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  'bpf',
  'perf_event_open',
  'userfaultfd',
  'keyctl',
  'add_key',
  'request_key',
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'mount',
  'umount2',
  'unshare',
  'setns',
  'pivot_root',
  'chroot',
  'socketcall',
  'kexec_load',
  'init_module',
  'reboot',
  'swapon',
] as const;

/**
 * Builds the profile. Pure and deterministic; see DENIED_SYSCALLS for what it refuses. `runsc` gets the
 * same profile except clone3: gVisor (runsc --oci-seccomp, Debian's 20221219 build) ignores `errnoRet`
 * and answers every refusal with EPERM, which stops glibc falling back from clone3 to clone, so no thread
 * could start; allowed, clone3 reaches gVisor, which does not implement it and answers ENOSYS itself,
 * and clone stays filtered on its namespace flags (a later gVisor that implements clone3 creates its
 * namespaces inside its own kernel, not the host's).
 */
export function buildSeccompProfile(options: { runtime?: 'runc' | 'runsc' } = {}): SeccompProfile {
  const allowArg0 = (name: string, value: number, op = 'SCMP_CMP_EQ'): SeccompRule => ({
    names: [name],
    action: 'SCMP_ACT_ALLOW',
    args: [{ index: 0, value, op }],
  });
  return {
    defaultAction: 'SCMP_ACT_ERRNO',
    defaultErrnoRet: EPERM,
    archMap: [
      { architecture: 'SCMP_ARCH_X86_64', subArchitectures: ['SCMP_ARCH_X86', 'SCMP_ARCH_X32'] },
      { architecture: 'SCMP_ARCH_AARCH64', subArchitectures: ['SCMP_ARCH_ARM'] },
    ],
    syscalls: [
      { names: ALLOWED, action: 'SCMP_ACT_ALLOW' },
      ...Object.values(ALLOWED_SOCKET_FAMILIES).map((family) => allowArg0('socket', family)),
      ...SAFE_PERSONALITIES.map((value) => allowArg0('personality', value)),
      // No block or character devices: without CAP_MKNOD runc's kernel refuses them anyway, but gVisor made them
      // in /mnt/data for uid 1000 (and ignores nodev), so the filter refuses them under both runtimes.
      ...Object.values(MKNOD_ALLOWED_TYPES).flatMap((type): SeccompRule[] => [
        {
          names: ['mknod'],
          action: 'SCMP_ACT_ALLOW',
          args: [{ index: 1, value: S_IFMT, valueTwo: type, op: 'SCMP_CMP_MASKED_EQ' }],
        },
        {
          names: ['mknodat'],
          action: 'SCMP_ACT_ALLOW',
          args: [{ index: 2, value: S_IFMT, valueTwo: type, op: 'SCMP_CMP_MASKED_EQ' }],
        },
      ]),
      // clone without namespace flags only (fork, threads); clone3 cannot be filtered on its flags,
      // so it reports ENOSYS and glibc falls back to clone.
      {
        names: ['clone'],
        action: 'SCMP_ACT_ALLOW',
        args: [{ index: 0, value: CLONE_NAMESPACE_MASK, valueTwo: 0, op: 'SCMP_CMP_MASKED_EQ' }],
      },
      options.runtime === 'runsc'
        ? { names: ['clone3'], action: 'SCMP_ACT_ALLOW' }
        : { names: ['clone3'], action: 'SCMP_ACT_ERRNO', errnoRet: ENOSYS },
    ],
  };
}

/** The profile as the `SecurityOpt` entry of a container's HostConfig. */
export function seccompSecurityOpt(profile: SeccompProfile = buildSeccompProfile()): string {
  return `seccomp=${JSON.stringify(profile)}`;
}
