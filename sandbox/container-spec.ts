import type Docker from 'dockerode';
import type { SandboxRuntime } from './runtime.js';
import { buildSeccompProfile, seccompSecurityOpt } from './seccomp.js';

/** The limits and lifetimes of sandboxes (THREADLAB_SANDBOX_*, THREADLAB_MAX_*; see src/config/sections.ts). */
export interface SandboxLimits {
  memoryMb: number;
  cpus: number;
  pids: number;
  nofile: number;
  fileSizeMb: number;
  dataMb: number;
  tmpMb: number;
  timeoutMs: number;
  graceMs: number;
  /** Time budget of one request for file previews. */
  previewTimeoutMs: number;
  outputBytes: number;
  /** Idle time before a container goes when nothing would be lost with it (variables saved). */
  idleTtlMs: number;
  /** Idle time of a container whose variables are not saved. @defaultValue `idleTtlMs` */
  unsavedIdleTtlMs?: number;
  /**
   * Idle time after which a saved session's Python kernel is replaced by a lean one (THREADLAB_SANDBOX_KERNEL_IDLE_MS).
   * @defaultValue 0: never
   */
  kernelIdleMs?: number;
  maxAgeMs: number;
  maxSessions: number;
  /** Containers always kept ready (THREADLAB_SANDBOX_POOL_SIZE). */
  poolSize: number;
  /**
   * Most kept ready while new sessions begin faster than `poolSize` covers (THREADLAB_SANDBOX_POOL_MAX).
   * @defaultValue `poolSize` (a fixed pool)
   */
  poolMax?: number;
  maxFileBytes: number;
  /** Bytes of changed files one run may bring back. */
  maxRunFilesBytes: number;
  filesTtlMs: number;
  /** Largest saved state of a session's variables, in bytes; 0 turns saving off (THREADLAB_STATE_MAX_MB). */
  stateMaxBytes: number;
  /** Delay after a run before its variables are saved, so a quick next request goes first. */
  stateSaveDelayMs: number;
}

/** Labels every sandbox container carries; orphans.ts finds them by these. */
export const LABELS = {
  sandbox: 'dev.threadlab.sandbox',
  instance: 'dev.threadlab.instance',
  session: 'dev.threadlab.session',
  host: 'dev.threadlab.host',
  pid: 'dev.threadlab.pid',
} as const;

/** The session label of a container started ahead of demand by the warm pool. */
export const POOL_SESSION = 'pool';

/**
 * The container's only capabilities, held by the supervisor: SETUID/SETGID to start the kernel as uid 1000,
 * SETPCAP to empty its bounding set. The kernel has none of them (sandbox/image/runner/privileges.py).
 */
export const SUPERVISOR_CAPABILITIES = ['CAP_SETUID', 'CAP_SETGID', 'CAP_SETPCAP'] as const;

/** The whole environment of a container (the image adds PATH and its own ENV); never the host's. */
export const CONTAINER_ENV = [
  'HOME=/mnt/data',
  'LANG=C.UTF-8',
  'MPLBACKEND=Agg',
  'PYTHONDONTWRITEBYTECODE=1',
  'PYTHONUNBUFFERED=1',
];

/**
 * The environment of a container when egress is on: the supervisor's relay listens on this loopback address
 * (sandbox/image/runner/egress_relay.py) and HTTP clients (pip, requests, urllib, curl) use it as their proxy.
 */
export const EGRESS_ENV = [
  'THREADLAB_EGRESS=1',
  'HTTP_PROXY=http://127.0.0.1:3128',
  'HTTPS_PROXY=http://127.0.0.1:3128',
  'http_proxy=http://127.0.0.1:3128',
  'https_proxy=http://127.0.0.1:3128',
];

export interface ContainerSpecOptions {
  image: string;
  limits: SandboxLimits;
  name: string;
  instanceId: string;
  /** Hashed session key, or POOL_SESSION. */
  session: string;
  hostname: string;
  ownerPid: number;
  /** The OCI runtime: runc, or gVisor's runsc (every other flag here applies under both). @defaultValue 'runc' */
  runtime?: SandboxRuntime;
  /** The engine's name of that runtime when it differs (`runsc-kvm`: gVisor on one platform). @defaultValue runtime */
  engineRuntime?: string;
  /** Relay the code's connections to the bot's egress gateway (THREADLAB_EGRESS_ALLOW is set). */
  egress?: boolean;
}

const MB = 1024 * 1024;

/**
 * Under runsc the engine's pids limit counts gVisor's own host threads and its ptrace stubs, not the code's
 * processes, and running out of them makes the Sentry panic (the container dies). Debian's runsc 20221219 has only the
 * ptrace platform: each address space the code makes gets a host stub process, which gains a host thread for every
 * Sentry thread that ever ran it, and released stubs are pooled, never ended. Measured at THREADLAB_SANDBOX_PIDS=128:
 * an idle sandbox 67, the data stack 72, 100 threads 1,010, 100 background processes 1,679, and a fork bomb held to
 * its 128 processes 3,900-7,750 (it grows with every bomb). So the host limit leaves room for what the code may do
 * within its own limit (RLIMIT_NPROC, which gVisor counts per sandbox; under runc it would count every container of
 * uid 1000 on the host: not used there), and a container whose host tasks swelled past half of it is renewed after
 * the run (sandbox/host-tasks.ts). The limit stays the host's backstop.
 */
export const RUNSC_HOST_PIDS = { base: 256, perTask: 24 } as const;

/** The engine's pids limit of a sandbox container: the code's own under runc, gVisor's host tasks under runsc. */
export function hostPidsLimit(pids: number, runtime: SandboxRuntime): number {
  return runtime === 'runsc' ? RUNSC_HOST_PIDS.base + RUNSC_HOST_PIDS.perTask * pids : pids;
}

/**
 * Under runsc the host's OOM killer sees one sandbox, so reaching the cgroup's limit would end the container,
 * not just the code's Python process. There the supervisor applies THREADLAB_SANDBOX_MEMORY_MB itself
 * (sandbox/image/runner/memory_guard.py) and the cgroup gets this headroom on top, for gVisor's own memory and the
 * guard's reaction time: the code still gets the configured limit, and the host cgroup stays the backstop.
 */
export function runscMemoryHeadroomMb(memoryMb: number): number {
  return Math.max(192, Math.ceil(memoryMb / 4));
}

/**
 * The create options of a sandbox container: no network, read-only root, size-capped tmpfs for /tmp
 * and /mnt/data, a root supervisor with three capabilities running the user's code as uid 1000 with none,
 * no-new-privileges, a tight seccomp allowlist, memory without
 * swap, CPU, pids, nofile, fsize and core limits, stdin attached for the runner protocol. Under runsc
 * the same flags hold: gVisor applies the cgroup limits, rlimits, uid, capabilities and no-new-privs, and the
 * seccomp profile only because ensure-docker.sh registers it with --oci-seccomp (see README, Security).
 */
export function buildContainerSpec(options: ContainerSpecOptions): Docker.ContainerCreateOptions {
  const { limits } = options;
  const runtime = options.runtime ?? 'runc';
  const memoryBytes = (limits.memoryMb + (runtime === 'runsc' ? runscMemoryHeadroomMb(limits.memoryMb) : 0)) * MB;
  return {
    name: options.name,
    Image: options.image,
    Hostname: 'sandbox',
    // The supervisor starts as root with CapAdd below only and runs the user's code as uid 1000 with no
    // capabilities (sandbox/image/runner/privileges.py), so that code cannot signal or trace it.
    User: '0:0',
    WorkingDir: '/mnt/data',
    // os.cpu_count() (Python 3.13 reads PYTHON_CPU_COUNT) is what Pool() and n_jobs=-1 size themselves
    // by: the host's cores would start more workers than the CPU share and crowd the pids limit.
    Env: [
      ...CONTAINER_ENV,
      `PYTHON_CPU_COUNT=${Math.max(1, Math.ceil(limits.cpus))}`,
      ...(runtime === 'runsc' ? [`THREADLAB_MEMORY_GUARD_MB=${limits.memoryMb}`] : []),
      ...(options.egress ? EGRESS_ENV : []),
    ],
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    OpenStdin: true,
    // When the bot's attach connection goes away, the runner sees EOF and exits.
    StdinOnce: true,
    Tty: false,
    NetworkDisabled: true,
    Labels: {
      [LABELS.sandbox]: '1',
      [LABELS.instance]: options.instanceId,
      [LABELS.session]: options.session,
      [LABELS.host]: options.hostname,
      [LABELS.pid]: String(options.ownerPid),
    },
    HostConfig: {
      Runtime: options.engineRuntime ?? runtime,
      NetworkMode: 'none',
      ReadonlyRootfs: true,
      Tmpfs: {
        '/tmp': `rw,nosuid,nodev,noexec,size=${limits.tmpMb}m,mode=1777`,
        '/mnt/data': `rw,nosuid,nodev,size=${limits.dataMb}m,uid=1000,gid=1000,mode=0755`,
      },
      Memory: memoryBytes,
      MemorySwap: memoryBytes,
      MemorySwappiness: 0,
      NanoCpus: Math.round(limits.cpus * 1e9),
      PidsLimit: hostPidsLimit(limits.pids, runtime),
      Ulimits: [
        ...(runtime === 'runsc' ? [{ Name: 'nproc', Soft: limits.pids, Hard: limits.pids }] : []),
        { Name: 'nofile', Soft: limits.nofile, Hard: limits.nofile },
        { Name: 'fsize', Soft: limits.fileSizeMb * MB, Hard: limits.fileSizeMb * MB },
        { Name: 'core', Soft: 0, Hard: 0 },
      ],
      CapDrop: ['ALL'],
      CapAdd: [...SUPERVISOR_CAPABILITIES],
      SecurityOpt: ['no-new-privileges:true', seccompSecurityOpt(buildSeccompProfile({ runtime }))],
      Init: false,
      Privileged: false,
      AutoRemove: false,
      IpcMode: 'private',
      ShmSize: 64 * MB,
      // Protocol traffic (file transfers included) must not pile up in a log file on the host.
      LogConfig: { Type: 'none', Config: {} },
      RestartPolicy: { Name: 'no' },
      Binds: [],
    },
  };
}
