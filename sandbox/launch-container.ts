import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import type { Logger } from '../src/logger.js';
import { ThreadlabError } from '../src/domain/errors.js';
import { buildContainerSpec, type SandboxLimits } from './container-spec.js';
import { startFailure } from './docker-errors.js';
import type { SandboxRuntime } from './runtime.js';
import { LiveContainer } from './live-container.js';
import { demuxAttach } from './attach-demux.js';
import { RunnerConnection } from './runner-connection.js';
import { EgressLink } from './egress-link.js';
import { endRuntimeProcesses } from './container-processes.js';

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
  /** The engine's name for that runtime when it is not `runtime` itself (`runsc-kvm`). @defaultValue runtime */
  engineRuntime?: string;
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
    ...(options.engineRuntime ? { engineRuntime: options.engineRuntime } : {}),
    ...(options.egress ? { egress: true } : {}),
  });
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  const startedAt = Date.now();
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
    // The bound covers the start too: a runtime can hang in `create` (gVisor's KVM platform where /dev/kvm
    // cannot run its guest), and then `docker start` never returns.
    await withTimeout(container.start(), readyTimeoutMs, name);
    try {
      const ready = await withTimeout(connection.ready, Math.max(1, readyTimeoutMs - (Date.now() - startedAt)), name);
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
    if (container) await removeStuck(container);
    throw startFailure(options.image, err);
  }
}

/** How long removing a container that failed to start may take before the launch gives up on it. */
const REMOVE_BOUND_MS = 15_000;

/**
 * Removes a container that did not start or become ready: its runtime's processes on this host are ended first
 * (a runtime hung in `create` holds the removal), then it is removed within REMOVE_BOUND_MS, never longer.
 */
async function removeStuck(container: Docker.Container): Promise<void> {
  await endRuntimeProcesses(container.id);
  await withTimeout(container.remove({ force: true }), REMOVE_BOUND_MS, container.id).catch(() => undefined);
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
  // What settles after the bound (a start that finally fails once its runtime is ended) must not go unhandled.
  promise.catch(() => undefined);
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
