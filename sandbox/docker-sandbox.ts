import { randomBytes } from 'node:crypto';
import { AsyncResource } from 'node:async_hooks';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import type { ExecutionResult, FilePreview, SandboxEnvironment, SandboxFile } from '../src/domain/execution.js';
import { ThreadlabError } from '../src/domain/errors.js';
import type { Logger } from '../src/logger.js';
import type { PreviewOptions, RunRequest, Sandbox } from '../src/ports/sandbox.js';
import { launchContainer } from './container-launcher.js';
import { loadDataStack } from './data-stack.js';
import { POOL_SESSION, type SandboxLimits } from './container-spec.js';
import { dockerUnreachable, imageMissing, isNotFound, isUnreachable, startFailure } from './docker-errors.js';
import { FileMirror } from './file-mirror.js';
import { sanitizeFileName } from './file-names.js';
import { mimeFromName } from '../src/domain/mime.js';
import { PUT_CHUNK_BYTES, putChunks, readFile } from './file-transfer.js';
import { toSandboxEnvironment } from './environment.js';
import { SessionContainers } from './session-containers.js';
import { syncRunFiles } from './session-files.js';
import type { LiveContainer } from './live-container.js';
import { removeOrphans } from './orphans.js';
import { requestPreviews } from './preview-request.js';
import { executeRun } from './run-execution.js';
import type { ReadyFrame } from './runner-protocol.js';
import { formatMs, SessionRegistry } from './session-registry.js';
import { LeanKernels, replaceKernel } from './lean-kernels.js';
import { threadHash } from '../src/domain/thread-key.js';
import { WarmPool, type PoolObserver } from './warm-pool.js';
import { PoolMemory } from './pool-memory.js';
import { pruneMirrors } from './mirror-retention.js';
import type { SaveOutcome } from './session-state.js';
import { StateKeeper } from './state-keeper.js';
import { resolveRuntime, type RuntimeChoice, type RuntimeSetting } from './runtime.js';
import type { EgressPort, EgressRunBudget } from '../src/ports/egress.js';

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
  /** The egress gateway, when THREADLAB_EGRESS_ALLOW allows destinations; without it containers have no network. */
  egress?: EgressPort;
}

const MB = 1024 * 1024;

/** The Sandbox port on Docker: one container per live session, a warm pool, files mirrored on the host. */
export class DockerSandbox implements Sandbox {
  readonly instanceId: string;
  readonly pool: WarmPool;
  private readonly memory: PoolMemory | undefined;
  private readonly registry: SessionRegistry;
  private readonly containers: SessionContainers;
  private readonly state: StateKeeper;
  private readonly lean: LeanKernels;
  private readonly launches = new Set<Promise<LiveContainer>>();
  private started: Promise<void> | undefined;
  private readyInfo: ReadyFrame | undefined;
  private runtimeChoice: RuntimeChoice | undefined;
  private closed = false;
  private pruneTimer: NodeJS.Timeout | undefined;
  private orphanTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: DockerSandboxOptions) {
    this.instanceId =
      options.instanceId ?? `${Date.now().toString(36)}-${process.pid}-${randomBytes(2).toString('hex')}`;
    const { limits } = options;
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
          .catch((err: unknown) => options.logger.warn({ err }, 'could not make an idle kernel lean')),
    });
    this.pool = new WarmPool({
      size: limits.poolSize,
      // THREADLAB_SANDBOX_POOL_SIZE=0 turns the pool off, growth included.
      maxSize: limits.poolSize === 0 ? 0 : (limits.poolMax ?? limits.poolSize),
      ...(options.poolDemandWindowMs ? { demandWindowMs: options.poolDemandWindowMs } : {}),
      launch: () => this.launch(POOL_SESSION),
      prime: async (live) => {
        const outcome = await loadDataStack(live.connection, limits.graceMs);
        if ('failed' in outcome) throw new Error(outcome.failed);
      },
      // Once the demand it was primed for aged out, a pooled container waits lean again.
      unprime: async (live) => {
        const replaced = await replaceKernel(live);
        if ('said' in replaced) throw new Error(replaced.said);
      },
      logger: options.logger,
      onDemand: () => this.memory?.changed(),
      ...(options.observer ? { observer: options.observer } : {}),
    });
    this.memory =
      options.demandFile && this.pool.maxSize > 0
        ? new PoolMemory({
            path: options.demandFile,
            pool: this.pool,
            logger: options.logger,
          })
        : undefined;
    this.state = new StateKeeper({ registry: this.registry, limits, logger: options.logger });
    this.lean = new LeanKernels({ registry: this.registry, state: this.state, logger: options.logger });
    this.containers = new SessionContainers({
      registry: this.registry,
      pool: this.pool,
      launch: (session) => this.launch(session),
      instanceId: this.instanceId,
      maxSessions: limits.maxSessions,
      logger: options.logger,
      ...(options.observer ? { observer: options.observer } : {}),
      saveState: async (session) => {
        await this.state.saveNow(session);
      },
      restoreState: (session, live) => this.state.restore(session, live),
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
    const { docker, image, logger } = this.options;
    try {
      await docker.getImage(image).inspect();
    } catch (err) {
      if (isUnreachable(err)) throw dockerUnreachable(err);
      if (isNotFound(err)) throw imageMissing(image, err);
      throw startFailure(image, err);
    }
    const choice = await resolveRuntime(docker, this.options.runtime ?? 'auto').catch((err: unknown) => {
      throw isUnreachable(err) ? dockerUnreachable(err) : err;
    });
    if (choice.fallback) logger.warn({ runtime: choice.runtime }, `sandbox runtime: ${choice.reason}`);
    else logger.info({ runtime: choice.runtime }, `sandbox runtime: ${choice.reason}`);
    this.runtimeChoice = choice;
    const removed = await removeOrphans(docker, { olderThanInstance: this.instanceId });
    if (removed.length > 0) logger.info({ removed }, 'removed orphaned sandbox containers');
    this.registry.startReaper();
    await this.memory?.restore();
    this.pool.fill();
    void this.pruneFiles();
    this.pruneTimer = setInterval(() => void this.pruneFiles(), Math.min(this.options.limits.filesTtlMs, 3_600_000));
    this.pruneTimer.unref();
    // A peer process that died while this one runs leaves containers behind: sweep, not only at start.
    this.orphanTimer = setInterval(() => void this.sweepOrphans(), this.options.orphanSweepMs ?? 60_000);
    this.orphanTimer.unref();
  }

  private async sweepOrphans(): Promise<void> {
    try {
      const removed = await removeOrphans(this.options.docker, { olderThanInstance: this.instanceId });
      if (removed.length > 0)
        this.options.logger.info({ removed }, 'removed sandbox containers of a process that died');
    } catch (err) {
      this.options.logger.warn({ err }, 'could not sweep orphaned sandbox containers');
    }
  }

  /** Deletes host copies of files of sessions idle beyond THREADLAB_FILES_TTL_MS. */
  private async pruneFiles(): Promise<void> {
    const live = new Set(this.registry.all().map((s) => s.hash));
    try {
      const removed = await pruneMirrors(this.options.dataDir, {
        maxAgeMs: this.options.limits.filesTtlMs,
        keep: (name) => live.has(name),
      });
      if (removed.length > 0)
        this.options.logger.info({ removed: removed.length }, 'deleted files of long-idle sessions');
    } catch (err) {
      this.options.logger.warn({ err }, 'could not prune old session files');
    }
  }

  async run(key: string, request: RunRequest): Promise<ExecutionResult> {
    await this.start();
    const session = this.registry.get(key);
    return this.registry.serialize(session, async () => {
      const live = await this.containers.ensureLive(session);
      // R and JavaScript have sessions of their own: the Python variables wait for the kernel's next use.
      if (request.language !== 'r' && request.language !== 'javascript') await this.lean.restore(session, live);
      // The bot's own runs leave the notices for the user's next run.
      const pendingReset = request.internal ? undefined : session.pendingReset;
      if (!request.internal) session.pendingReset = undefined;
      const { limits, egress } = this.options;
      const timeoutMs = request.timeoutMs ?? limits.timeoutMs;
      let budget: EgressRunBudget | undefined;
      if (egress && live.egress) {
        // The run's connections share one budget and end with it (a kept-alive socket does not outlive the run).
        const runBudget = egress.newBudget(timeoutMs + limits.graceMs);
        const context = { thread: session.hash };
        // Handled in the run's async context, not the link's: what the caller knows about the run (the
        // audit scope naming who asked) follows its connections.
        live.egress.activate(AsyncResource.bind((socket: Duplex) => void egress.handle(socket, context, runBudget)));
        budget = runBudget;
      }
      const outcome = await executeRun({
        live,
        request,
        timeoutMs,
        graceMs: limits.graceMs,
        outputBytes: limits.outputBytes,
        maxFileBytes: limits.maxFileBytes,
        maxRunFilesBytes: limits.maxRunFilesBytes,
      }).finally(() => {
        live.egress?.deactivate();
        budget?.close();
      });
      if (outcome.lost) {
        if (session.live === live) session.live = undefined;
        session.pendingReset = undefined;
        await live.remove();
      } else {
        await syncRunFiles({
          connection: live.connection,
          mirror: session.mirror,
          outcome,
          maxFileBytes: limits.maxFileBytes,
          maxRunFilesBytes: limits.maxRunFilesBytes,
          maxMirrorBytes: limits.dataMb * MB,
          logger: this.options.logger,
        });
      }
      if (pendingReset && !outcome.result.stateReset) outcome.result.stateReset = { reason: pendingReset };
      if (!request.internal) {
        if (session.stateRestored) outcome.result.stateRestored = session.stateRestored;
        if (session.stateNotSaved) outcome.result.stateNotSaved = { reason: session.stateNotSaved };
        session.stateRestored = undefined;
        session.stateNotSaved = undefined;
      }
      if (!outcome.lost && request.language === 'python') {
        this.state.changed(session);
      }
      if (request.language === 'r' || request.language === 'javascript') {
        if (session.live === live) session.holdsUnsavedSession = true;
      }
      return outcome.result;
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
    const tooLarge = () =>
      new ThreadlabError(
        'sandbox_file_rejected',
        `${path} is larger than ${maxBytes / MB} MB (THREADLAB_MAX_FILE_MB).`,
        {
          isPolicy: true,
        },
      );
    if (Buffer.isBuffer(data) && data.length > maxBytes) throw tooLarge();
    await this.start();
    const session = this.registry.get(key);
    return this.registry.serialize(session, async () => {
      const live = await this.containers.ensureLive(session);
      // The bytes go to the host copy first, counted as they arrive: a source that fails or runs over
      // leaves no partial file anywhere, and the container then reads the finished copy a chunk at a time.
      await session.mirror.writeFrom(path, async (write) => {
        let received = 0;
        for await (const chunk of Buffer.isBuffer(data) ? [data] : data) {
          received += chunk.length;
          if (received > maxBytes) throw tooLarge();
          await write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        }
      });
      try {
        return await putChunks(live.connection, path, session.mirror.chunks(path, PUT_CHUNK_BYTES));
      } catch (err) {
        // Not in the container: the host copy would pass for it (reads prefer it), so it goes too.
        await session.mirror.remove(path);
        throw err;
      }
    });
  }

  async listFiles(key: string): Promise<SandboxFile[]> {
    const session = this.registry.get(key);
    return this.registry.serialize(session, async () => {
      if (session.live?.isAlive) {
        const frame = await session.live.connection.request({ op: 'list_files' });
        if (frame.type === 'files') return frame.files;
      }
      return (await session.mirror.list()).map((f) => ({ ...f, mime: mimeFromName(f.path) }));
    });
  }

  async readFile(key: string, path: string): Promise<Buffer> {
    const session = this.registry.get(key);
    session.mirror.resolve(path); // refuses traversal before anything else
    return this.registry.serialize(session, async () => {
      // The host copy is what the last run brought back, within its limits: the container's file may
      // have grown since (a process left running), and reading it again would cost a second transfer.
      if (!session.live?.isAlive || (await session.mirror.has(path))) return session.mirror.read(path);
      return readFile(session.live.connection, path, this.options.limits.maxFileBytes);
    });
  }

  async previewFiles(key: string, paths: string[], options: PreviewOptions = {}): Promise<FilePreview[]> {
    await this.start();
    const session = this.registry.get(key);
    const { limits } = this.options;
    return this.registry.serialize(session, async () => {
      const live = await this.containers.ensureLive(session);
      return requestPreviews({
        connection: live.connection,
        kill: () => live.kill(),
        paths,
        timeoutMs: options.timeoutMs ?? limits.previewTimeoutMs,
        graceMs: limits.graceMs,
        signal: options.signal,
      });
    });
  }

  async prepare(key: string): Promise<void> {
    await this.start();
    const session = this.registry.get(key);
    await this.registry.serialize(session, async () => {
      const live = await this.containers.ensureLive(session);
      // A lean kernel gets its variables back while the model writes the code (which loads most of the stack).
      await this.lean.restore(session, live);
      const outcome = await loadDataStack(live.connection, this.options.limits.graceMs);
      if ('failed' in outcome)
        this.options.logger.info({ thread: session.hash, failed: outcome.failed }, 'data stack not loaded');
      else this.options.logger.debug({ thread: session.hash, ...outcome }, 'data stack loaded');
    });
  }

  async reset(key: string): Promise<void> {
    const session = this.registry.peek(key);
    if (!session) {
      await new FileMirror(join(this.options.dataDir, threadHash(key))).clear();
      return;
    }
    await this.registry.serialize(session, async () => {
      const live = session.live;
      session.live = undefined;
      await live?.remove();
      await session.mirror.clear();
      this.registry.delete(key);
    });
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
    // A container the pool is starting will say what the image offers; else start a probe.
    if (!this.readyInfo && this.launches.size > 0) await Promise.race([...this.launches]).catch(() => undefined);
    if (!this.readyInfo) {
      const probe = await this.launch('probe');
      await probe.remove();
    }
    return toSandboxEnvironment(
      this.readyInfo as ReadyFrame,
      this.options.limits,
      this.options.egress?.describe() ?? false,
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    this.registry.stopReaper();
    clearInterval(this.pruneTimer);
    clearInterval(this.orphanTimer);
    await this.memory?.close();
    await this.state.saveAll();
    await this.pool.close();
    await Promise.allSettled([...this.launches]);
    await Promise.all(
      this.registry.all().map(async (session) => {
        const live = session.live;
        session.live = undefined;
        await live?.remove();
      }),
    );
  }

  /** The runtime sandboxes get and why; undefined until start() has asked the engine. */
  get runtime(): RuntimeChoice | undefined {
    return this.runtimeChoice;
  }

  /** Live session containers (for tests and metrics). */
  liveSessions(): number {
    return this.registry.liveCount();
  }

  private async launch(session: string): Promise<LiveContainer> {
    if (this.closed) throw new ThreadlabError('sandbox_start_failed', 'The sandbox is closed.');
    const launch = launchContainer({
      docker: this.options.docker,
      image: this.options.image,
      limits: this.options.limits,
      instanceId: this.instanceId,
      session,
      logger: this.options.logger,
      readyTimeoutMs: this.options.readyTimeoutMs,
      egress: Boolean(this.options.egress),
      ...(this.runtimeChoice ? { runtime: this.runtimeChoice.runtime } : {}),
    });
    this.launches.add(launch);
    try {
      const live = await launch;
      this.readyInfo ??= live.ready;
      if (this.closed) {
        await live.remove();
        throw new ThreadlabError('sandbox_start_failed', 'The sandbox is closed.');
      }
      return live;
    } finally {
      this.launches.delete(launch);
    }
  }
}
