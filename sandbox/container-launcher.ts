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
