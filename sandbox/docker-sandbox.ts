import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type Docker from 'dockerode';
import type { ExecutionResult, FilePreview, SandboxEnvironment, SandboxFile } from '../src/domain/execution.js';
import { threadHash } from '../src/domain/thread-key.js';
import type { Logger } from '../src/logger.js';
import type { EgressPort } from '../src/ports/egress.js';
import type { PreviewOptions, RunRequest, Sandbox } from '../src/ports/sandbox.js';
import { ContainerLauncher } from './container-launcher.js';
import { hostPidsLimit, POOL_SESSION, type SandboxLimits } from './container-spec.js';
import { toSandboxEnvironment } from './environment.js';
import { FileMirror } from './file-mirror.js';
import { sanitizeFileName } from './file-names.js';
import { HostTaskWatch } from './host-tasks.js';
import { LeanKernels } from './lean-kernels.js';
import type { LiveContainer } from './live-container.js';
import type { PoolMemory } from './pool-memory.js';
import { requestPreviews } from './preview-request.js';
import type { RuntimeChoice, RuntimeSetting } from './runtime.js';
import type { PlatformSetting } from './gvisor-platforms.js';
import { DeferredRemovals } from './deferred-removals.js';
import { memoryHeadroom } from './pool-headroom.js';
import { createSandboxPool } from './sandbox-pool.js';
import { SessionContainers } from './session-containers.js';
import { fileTooLarge, listSessionFiles, putSessionFile, readSessionFile } from './session-files.js';
import { formatMs, SessionRegistry, type Session } from './session-registry.js';
import { SessionRuns } from './session-runs.js';
import type { SaveOutcome } from './session-state.js';
import { StateKeeper } from './state-keeper.js';
import { Upkeep } from './upkeep.js';
import type { PoolObserver, WarmPool } from './warm-pool.js';

export interface DockerSandboxOptions {
  docker: Docker;
  /** Image tag of the sandbox (built by `threadlab sandbox build`). */
  image: string;
  limits: SandboxLimits;
  /** Host directory for the per-session file mirrors. */
  dataDir: string;
  /**
   * Where the warm pool saves what it learned about demand and reads it back at start (`poolDemandFile`), so a
   * restarted process refills straight to it. @defaultValue none: each start begins at the pool's size
   */
  demandFile?: string;
  /** How long a session start counts as demand for the pool (tests and benchmarks). @defaultValue 10 min */
  poolDemandWindowMs?: number;
  logger: Logger;
  /** Labels this process's containers. @defaultValue a fresh id per process */
  instanceId?: string;
  /** Told about pool size, hits and misses, and live sessions (Prometheus in production). */
  observer?: PoolObserver;
  /** How often containers of dead processes are looked for and removed. @defaultValue 60000 */
  orphanSweepMs?: number;
  /** How long a new container may take to say ready. @defaultValue 60000 */
  readyTimeoutMs?: number;
  /** THREADLAB_SANDBOX_RUNTIME: gVisor's runsc when the engine has it (auto), or runc / runsc. @defaultValue 'auto' */
  runtime?: RuntimeSetting;
  /** THREADLAB_SANDBOX_PLATFORM: gVisor's platform, or the fastest that passes the probe. @defaultValue 'auto' */
  platform?: PlatformSetting;
  /** The egress gateway, when THREADLAB_EGRESS_ALLOW allows destinations; without it containers have no network. */
  egress?: EgressPort;
}

/**
 * The Sandbox port on Docker: one container per live session, a warm pool, files mirrored on the host. It wires its
 * parts together (the launcher, the sessions and their containers, the pool, the runs, the saved variables, the lean
 * kernels, the host's upkeep); a port method takes the session's turn where it needs one and hands the work on.
 */
export class DockerSandbox implements Sandbox {
  readonly instanceId: string;
  readonly pool: WarmPool;
  private readonly memory: PoolMemory | undefined;
  private readonly launcher: ContainerLauncher;
  private readonly registry: SessionRegistry;
  private readonly containers: SessionContainers;
  private readonly state: StateKeeper;
  private readonly lean: LeanKernels;
  private readonly runs: SessionRuns;
  private readonly hostTasks: HostTaskWatch;
  private readonly upkeep: Upkeep;
  private started: Promise<void> | undefined;

  constructor(private readonly options: DockerSandboxOptions) {
    this.instanceId =
      options.instanceId ?? `${Date.now().toString(36)}-${process.pid}-${randomBytes(2).toString('hex')}`;
    const { limits, logger } = options;
    this.launcher = new ContainerLauncher({
      docker: options.docker,
      image: options.image,
      limits,
      instanceId: this.instanceId,
      logger,
      readyTimeoutMs: options.readyTimeoutMs,
      runtime: options.runtime,
      ...(options.platform ? { platform: options.platform } : {}),
      egress: Boolean(options.egress),
    });
    this.registry = new SessionRegistry({
      dataDir: options.dataDir,
      idleTtlMs: limits.idleTtlMs,
      ...(limits.unsavedIdleTtlMs !== undefined ? { unsavedIdleTtlMs: limits.unsavedIdleTtlMs } : {}),
      // Nothing is lost with the container once the variables of its last Python run are saved and it holds no
      // R or JavaScript session (those are never saved).
      isSaved: (session) =>
        limits.stateMaxBytes > 0 && !session.stateDirty && !session.stateIncomplete && !session.holdsUnsavedSession,
      maxAgeMs: limits.maxAgeMs,
      onExpire: (session, reason) =>
        void this.registry.serialize(session, () => this.containers.retire(session, reason)),
      kernelIdleMs: limits.kernelIdleMs ?? 0,
      onKernelIdle: (session, idleMs) =>
        void this.registry
          .serialize(session, () => this.lean.recycle(session, `the thread was idle for ${formatMs(idleMs)}`), {
            touch: false,
          })
          .catch((err: unknown) => logger.warn({ err }, 'could not make an idle kernel lean')),
    });
    ({ pool: this.pool, memory: this.memory } = createSandboxPool({
      limits,
      launch: () => this.launcher.launch(POOL_SESSION),
      demandFile: options.demandFile,
      demandWindowMs: options.poolDemandWindowMs,
      observer: options.observer,
      logger,
    }));
    this.state = new StateKeeper({ registry: this.registry, limits, logger });
    this.lean = new LeanKernels({
      registry: this.registry,
      state: this.state,
      logger,
      ...(options.observer ? { observer: options.observer } : {}),
    });
    this.containers = new SessionContainers({
      registry: this.registry,
      pool: this.pool,
      launch: (session) => this.launcher.launch(session),
      instanceId: this.instanceId,
      maxSessions: limits.maxSessions,
      logger,
      ...(options.observer ? { observer: options.observer } : {}),
      saveState: async (session) => {
        await this.state.saveNow(session);
      },
      restoreState: (session, live) => this.state.restore(session, live),
      removals: new DeferredRemovals({ headroom: memoryHeadroom() }),
    });
    const underGvisor = () => this.launcher.runtime?.runtime === 'runsc';
    this.runs = new SessionRuns({
      limits,
      state: this.state,
      lean: this.lean,
      egress: options.egress,
      underGvisor,
      logger,
    });
    this.hostTasks = new HostTaskWatch({
      underGvisor,
      limit: hostPidsLimit(limits.pids, 'runsc'),
      pids: limits.pids,
      serialize: (session, work) => this.registry.serialize(session, work, { touch: false }),
      retire: (session, reason) => this.containers.retire(session, reason),
      onRenewed: () => options.observer?.renewed?.('host_tasks'),
      logger,
    });
    this.upkeep = new Upkeep({
      docker: options.docker,
      instanceId: this.instanceId,
      dataDir: options.dataDir,
      filesTtlMs: limits.filesTtlMs,
      orphanSweepMs: options.orphanSweepMs,
      registry: this.registry,
      logger,
    });
  }

  /** Checks the image, removes orphans of crashed instances, starts the reaper and fills the pool. */
  start(): Promise<void> {
    this.started ??= this.startOnce().catch((err: unknown) => {
      this.started = undefined;
      throw err;
    });
    return this.started;
  }

  private async startOnce(): Promise<void> {
    await this.launcher.check();
    await this.upkeep.removeOrphans();
    this.registry.startReaper();
    await this.memory?.restore();
    this.pool.fill();
    this.upkeep.start();
  }

  /** Runs `work` in the session's turn, with its container live, once the sandbox has started. */
  private async withLive<T>(key: string, work: (session: Session, live: LiveContainer) => Promise<T>): Promise<T> {
    await this.start();
    const session = this.registry.get(key);
    return this.registry.serialize(session, async () => work(session, await this.containers.ensureLive(session)));
  }

  run(key: string, request: RunRequest): Promise<ExecutionResult> {
    return this.withLive(key, async (session, live) => {
      const result = await this.runs.run(session, live, request);
      this.hostTasks.afterRun(session, live, result);
      return result;
    });
  }

  /**
   * Saves the thread's variables now, on the path the deferred save and a recycle take, and says what it did
   * (the state is on the host once this resolves); undefined when there was nothing to save. For
   * `threadlab bench sandbox`, which times it.
   */
  async saveState(key: string): Promise<SaveOutcome | undefined> {
    const session = this.registry.peek(key);
    return session ? this.registry.serialize(session, () => this.state.saveNow(session)) : undefined;
  }

  /**
   * Replaces the thread's idle kernel by a lean one now, as THREADLAB_SANDBOX_KERNEL_IDLE_MS does, if nothing would
   * be lost; says whether it did. For `threadlab bench sandbox`, which measures the memory this gives back.
   */
  async makeLean(key: string): Promise<boolean> {
    const session = this.registry.peek(key);
    if (!session) return false;
    return this.registry.serialize(session, () => this.lean.recycle(session, 'the thread was idle'), { touch: false });
  }

  async putFile(key: string, name: string, data: Buffer | AsyncIterable<Uint8Array>): Promise<SandboxFile> {
    const path = sanitizeFileName(name);
    const maxBytes = this.options.limits.maxFileBytes;
    if (Buffer.isBuffer(data) && data.length > maxBytes) throw fileTooLarge(path, maxBytes);
    return this.withLive(key, (session, live) =>
      putSessionFile({ connection: live.connection, mirror: session.mirror, path, data, maxBytes }),
    );
  }

  async listFiles(key: string): Promise<SandboxFile[]> {
    const session = this.registry.get(key);
    return this.registry.serialize(session, () => listSessionFiles(session));
  }

  async readFile(key: string, path: string): Promise<Buffer> {
    const session = this.registry.get(key);
    session.mirror.resolve(path); // refuses traversal before anything else
    return this.registry.serialize(session, () =>
      readSessionFile(session, { path, maxBytes: this.options.limits.maxFileBytes }),
    );
  }

  previewFiles(key: string, paths: string[], options: PreviewOptions = {}): Promise<FilePreview[]> {
    const { limits } = this.options;
    return this.withLive(key, (_session, live) =>
      requestPreviews({
        connection: live.connection,
        kill: () => live.kill(),
        paths,
        timeoutMs: options.timeoutMs ?? limits.previewTimeoutMs,
        graceMs: limits.graceMs,
        signal: options.signal,
      }),
    );
  }

  prepare(key: string): Promise<void> {
    return this.withLive(key, (session, live) => this.runs.prepare(session, live));
  }

  async reset(key: string): Promise<void> {
    const session = this.registry.peek(key);
    if (!session) {
      await new FileMirror(join(this.options.dataDir, threadHash(key))).clear();
      return;
    }
    await this.registry.serialize(session, () => this.containers.discard(session));
  }

  async recycle(key: string): Promise<void> {
    const session = this.registry.peek(key);
    if (!session?.live) return;
    await this.registry.serialize(session, () =>
      this.containers.retire(session, 'a scheduled re-run starts in a fresh container'),
    );
  }

  isLive(key: string): boolean {
    return Boolean(this.registry.peek(key)?.live?.isAlive);
  }

  async environment(): Promise<SandboxEnvironment> {
    await this.start();
    const ready = await this.launcher.imageReady();
    return toSandboxEnvironment(ready, this.options.limits, this.options.egress?.describe() ?? false);
  }

  async close(): Promise<void> {
    this.launcher.close();
    this.registry.stopReaper();
    this.upkeep.stop();
    await this.memory?.close();
    await this.state.saveAll();
    await this.pool.close();
    await this.launcher.settled();
    await this.containers.removeAll();
  }

  /** The runtime sandboxes get and why; undefined until start() has asked the engine. */
  get runtime(): RuntimeChoice | undefined {
    return this.launcher.runtime;
  }

  /** Live session containers (for tests and metrics). */
  liveSessions(): number {
    return this.registry.liveCount();
  }
}
