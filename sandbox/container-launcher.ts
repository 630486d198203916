import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import type { Logger } from '../src/logger.js';
import { ThreadlabError } from '../src/domain/errors.js';
import { buildContainerSpec, type SandboxLimits } from './container-spec.js';
import { dockerUnreachable, imageMissing, isNotFound, isUnreachable, startFailure } from './docker-errors.js';
import { resolveRuntime, type RuntimeChoice, type RuntimeSetting, type SandboxRuntime } from './runtime.js';
import type { ReadyFrame } from './runner-protocol.js';
import { LiveContainer } from './live-container.js';
import { demuxAttach } from './attach-demux.js';
import { RunnerConnection } from './runner-connection.js';
import { EgressLink } from './egress-link.js';

export interface LaunchOptions {
  docker: Docker;
  image: string;
  limits: SandboxLimits;
  instanceId: string;
  /** Hashed session key, or POOL_SESSION. */
  session: string;
  logger: Logger;
  /** The OCI runtime of the container. @defaultValue 'runc' */
  runtime?: SandboxRuntime;
  /** How long the runner may take to import its libraries and say ready. @defaultValue 60000 */
  readyTimeoutMs?: number;
  /** Start the supervisor's egress relay and link it to the bot. */
  egress?: boolean;
}

/** A Docker container name for a sandbox of this instance. */
export function containerName(instanceId: string, session: string): string {
  const safe = (s: string) => s.replace(/[^a-zA-Z0-9_.-]/g, '-').slice(0, 40);
  return `threadlab-${safe(instanceId)}-${safe(session)}-${randomBytes(3).toString('hex')}`;
}

/**
 * Creates a container, attaches to its stdio before starting it (so no frame is lost), starts it and
 * waits for the runner's ready frame. On any failure the container is removed and a typed error thrown.
 */
export async function launchContainer(options: LaunchOptions): Promise<LiveContainer> {
  const { docker, logger } = options;
  const name = containerName(options.instanceId, options.session);
  const spec = buildContainerSpec({
    image: options.image,
    limits: options.limits,
    name,
    instanceId: options.instanceId,
    session: options.session,
    hostname: hostname(),
    ownerPid: process.pid,
    ...(options.runtime ? { runtime: options.runtime } : {}),
    ...(options.egress ? { egress: true } : {}),
  });
  let container: Docker.Container | undefined;
  try {
    container = await docker.createContainer(spec);
    const stream = (await container.attach({
      stream: true,
      stdin: true,
      stdout: true,
      stderr: true,
      hijack: true,
    })) as unknown as Duplex;
    const connection = new RunnerConnection({
      stream,
      demux: (s, out, err) => demuxAttach(s, out, err, (reason) => s.destroy(new Error(reason))),
      logger: logger.child({ container: name }),
    });
    const egress = options.egress ? new EgressLink(connection, logger.child({ container: name })) : undefined;
    await container.start();
    try {
      const ready = await withTimeout(connection.ready, options.readyTimeoutMs ?? 60_000, name);
      return new LiveContainer(container, name, connection, ready, logger, egress);
    } catch (err) {
      const said = connection.diagnostics.trim();
      throw new ThreadlabError(
        'sandbox_start_failed',
        `Sandbox ${name} did not become ready${said ? `: ${said}` : ''}`,
        {
          cause: err,
          isRetryable: true,
        },
      );
    }
  } catch (err) {
    if (container) await container.remove({ force: true }).catch(() => undefined);
    throw startFailure(options.image, err);
  }
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number, name: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ThreadlabError('sandbox_start_failed', `Sandbox ${name} did not become ready within ${timeoutMs} ms.`, {
            isRetryable: true,
          }),
        ),
      timeoutMs,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export interface ContainerLauncherOptions {
  docker: Docker;
  image: string;
  limits: SandboxLimits;
  instanceId: string;
  logger: Logger;
  /** How long a new container may take to say ready. @defaultValue 60000 */
  readyTimeoutMs?: number;
  /** THREADLAB_SANDBOX_RUNTIME, decided by `check`. @defaultValue 'auto' */
  runtime?: RuntimeSetting;
  /** Containers start with the supervisor's egress relay linked to the bot. */
  egress: boolean;
}

/**
 * Starts the sandbox's containers: under the runtime chosen at start, counted while they start (so closing can wait
 * for them), refused once closed; the first ready frame is kept, as what the image offers.
 */
export class ContainerLauncher {
  private readonly launches = new Set<Promise<LiveContainer>>();
  private readyInfo: ReadyFrame | undefined;
  private runtimeChoice: RuntimeChoice | undefined;
  private closed = false;

  constructor(private readonly options: ContainerLauncherOptions) {}

  /** The runtime sandboxes get and why; undefined until `check` has asked the engine. */
  get runtime(): RuntimeChoice | undefined {
    return this.runtimeChoice;
  }

  /** Before the first launch: the image is there (sandbox_image_missing), and the runtime is chosen and logged. */
  async check(): Promise<void> {
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
  }

  /** Starts a container labelled with `session` (a session hash, POOL_SESSION or a probe). */
  async launch(session: string): Promise<LiveContainer> {
    if (this.closed) throw new ThreadlabError('sandbox_start_failed', 'The sandbox is closed.');
    const launch = launchContainer({
      docker: this.options.docker,
      image: this.options.image,
      limits: this.options.limits,
      instanceId: this.options.instanceId,
      session,
      logger: this.options.logger,
      readyTimeoutMs: this.options.readyTimeoutMs,
      egress: this.options.egress,
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

  /** What the image offers, as a runner said it when ready. */
  async imageReady(): Promise<ReadyFrame> {
    // A container the pool is starting will say what the image offers; else start a probe.
    if (!this.readyInfo && this.launches.size > 0) await Promise.race([...this.launches]).catch(() => undefined);
    if (this.readyInfo) return this.readyInfo;
    const probe = await this.launch('probe');
    await probe.remove();
    return this.readyInfo ?? probe.ready;
  }

  /** Refuses launches from now on; a container that becomes ready after this is removed. */
  close(): void {
    this.closed = true;
  }

  /** Resolves once the launches under way have ended, however they ended. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.launches]);
  }
}
