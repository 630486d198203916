import type Docker from 'dockerode';
import type { Logger } from '../src/logger.js';
import type { RunnerConnection } from './runner-connection.js';
import type { ReadyFrame } from './runner-protocol.js';
import { isNotFound } from './docker-errors.js';
import type { EgressLink } from './egress-link.js';

/** How a container ended, read from the engine after its stream closed. */
export interface ContainerExit {
  oomKilled: boolean;
  exitCode: number | undefined;
}

/** A started sandbox container whose runner said ready. */
export class LiveContainer {
  readonly startedMs = Date.now();
  private removing: Promise<void> | undefined;

  constructor(
    readonly container: Docker.Container,
    readonly name: string,
    readonly connection: RunnerConnection,
    readonly ready: ReadyFrame,
    private readonly logger: Logger,
    /** The bot's end of the container's egress relay, when egress is on. */
    readonly egress?: EgressLink,
  ) {}

  get id(): string {
    return this.container.id;
  }

  get isAlive(): boolean {
    return !this.connection.isClosed && this.removing === undefined;
  }

  /** SIGKILLs the container; its connection then closes. */
  async kill(): Promise<void> {
    await this.container.kill({ signal: 'SIGKILL' }).catch(() => undefined);
  }

  /**
   * The container's tasks as the host counts them (its pids cgroup, from the engine's stats), or undefined when the
   * engine does not say within `timeoutMs`. The engine answers on its next sample: up to a second.
   */
  async hostTasks(timeoutMs = 5000): Promise<number | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, timeoutMs, undefined)));
    try {
      const stats = await Promise.race([this.container.stats({ stream: false, 'one-shot': true }), late]);
      const current: unknown = stats?.pids_stats?.current;
      return typeof current === 'number' && Number.isSafeInteger(current) && current >= 0 ? current : undefined;
    } catch {
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Reads OOMKilled and the exit code; call after the connection closed. */
  async exitState(): Promise<ContainerExit> {
    try {
      const info = await this.container.inspect();
      return {
        oomKilled: Boolean(info.State.OOMKilled),
        exitCode: info.State.Running ? undefined : info.State.ExitCode,
      };
    } catch {
      return { oomKilled: false, exitCode: undefined };
    }
  }

  /** Kills and removes the container; safe to call more than once. */
  remove(): Promise<void> {
    this.removing ??= (async () => {
      this.connection.close();
      try {
        await this.container.remove({ force: true, v: true });
      } catch (err) {
        if (!isNotFound(err) && !/already in progress/i.test(String(err))) {
          this.logger.warn({ err, container: this.name }, 'sandbox container could not be removed');
        }
      }
    })();
    return this.removing;
  }
}
