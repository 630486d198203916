import { join } from 'node:path';
import { freePort } from '../../support/redis-server.js';
import { removeContainersOf } from '../roles/containers.js';
import { spawnThreadlab, stopProcess, type ThreadlabProcess } from '../roles/processes.js';
import { WebClientForTests } from '../shipped/web-client.js';

/** `threadlab start` with only the web chat, on loopback, and a client of its API. */
export interface WebThreadlab {
  process: ThreadlabProcess;
  web: WebClientForTests;
}

/**
 * Spawns `threadlab start` (every role in one process) with the web chat on a free loopback port, its data under
 * `dataDir/start`, and waits until it is ready (stopping it when it never is). `env` points it at the model server
 * (cliEnv's output); the caller stops the process (stopProcess) and removes its containers.
 */
export async function startWebThreadlab(o: {
  name: string;
  env: Record<string, string>;
  dataDir: string;
  readyTimeoutMs?: number;
}): Promise<WebThreadlab> {
  const port = await freePort();
  const process = spawnThreadlab({
    name: o.name,
    role: 'all',
    metricsPort: await freePort(),
    env: {
      ...o.env,
      THREADLAB_WEB_ENABLED: 'true',
      THREADLAB_WEB_HOST: '127.0.0.1',
      THREADLAB_WEB_PORT: String(port),
      THREADLAB_SHUTDOWN_TIMEOUT_MS: '5000',
      THREADLAB_DATA_DIR: join(o.dataDir, 'start'),
    },
  });
  try {
    await process.ready(o.readyTimeoutMs ?? 120_000);
  } catch (err) {
    // A process that never became ready is stopped here: the caller has nothing to stop yet.
    await stopProcess(process, 'SIGTERM');
    await removeContainersOf([process.pid]).catch(() => undefined);
    throw err;
  }
  return { process, web: new WebClientForTests(() => `http://127.0.0.1:${port}`) };
}
