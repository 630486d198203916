import type Docker from 'dockerode';
import type { Logger } from '../src/logger.js';
import { ThreadlabError } from '../src/domain/errors.js';
import type { SandboxLimits } from './container-spec.js';
import { dockerUnreachable, imageMissing, isNotFound, isUnreachable, startFailure } from './docker-errors.js';
import { resolveRuntime, type RuntimeChoice, type RuntimeSetting } from './runtime.js';
import type { ReadyFrame } from './runner-protocol.js';
import type { LiveContainer } from './live-container.js';
import type { PlatformSetting } from './gvisor-platforms.js';
import { cachedRanking } from './platform-cache.js';
import { launchContainer } from './launch-container.js';

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
  /** THREADLAB_SANDBOX_PLATFORM: gVisor's platform, or the fastest that passes the probe (auto). @defaultValue 'auto' */
  platform?: PlatformSetting;
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
    const rank = cachedRanking({ docker, image, limits: this.options.limits, logger });
    const choice = await resolveRuntime(docker, this.options.runtime ?? 'auto', {
      rank,
      ...(this.options.platform ? { platform: this.options.platform } : {}),
    }).catch((err: unknown) => {
      throw isUnreachable(err) ? dockerUnreachable(err) : err;
    });
    const fields = { runtime: choice.runtime, engineRuntime: choice.engineRuntime };
    if (choice.fallback) logger.warn(fields, `sandbox runtime: ${choice.reason}`);
    else logger.info(fields, `sandbox runtime: ${choice.reason}`);
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
      ...(this.runtimeChoice
        ? { runtime: this.runtimeChoice.runtime, engineRuntime: this.runtimeChoice.engineRuntime }
        : {}),
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
