import Docker from 'dockerode';
import { LABELS, POOL_SESSION } from '../../../sandbox/container-spec.js';

export const docker = new Docker();

export interface SandboxContainer {
  id: string;
  name: string;
  state: string;
  pid: number;
  session: string;
}

/** Sandbox containers (label dev.threadlab.sandbox=1), running or not, owned by one of `pids`. */
export async function sandboxContainers(pids: number[]): Promise<SandboxContainer[]> {
  const list = await docker.listContainers({ all: true, filters: { label: [`${LABELS.sandbox}=1`] } });
  return list
    .map((c) => ({
      id: c.Id,
      name: c.Names[0]?.replace(/^\//, '') ?? c.Id,
      state: c.State,
      pid: Number(c.Labels[LABELS.pid]),
      session: c.Labels[LABELS.session] ?? '',
    }))
    .filter((c) => pids.includes(c.pid));
}

/**
 * Whether a container belongs to a thread: started for it (its session label), or a warm-pool container a thread
 * took, which keeps the label `pool` and is renamed `threadlab-<instance>-<hash>-<6 hex>` (sandbox/container-retention.ts).
 */
export function isThreadContainer(c: Pick<SandboxContainer, 'name' | 'session'>): boolean {
  return (c.session !== '' && c.session !== POOL_SESSION) || /-[0-9a-f]{24}-[0-9a-f]{6}$/.test(c.name);
}

/**
 * Sandbox containers ever created by process `pid` between `sinceMs` and now, from the engine's event
 * log: also catches a container that was created and removed again between two polls.
 */
export async function containersCreatedBy(pid: number, sinceMs: number): Promise<string[]> {
  const stream = (await docker.getEvents({
    since: Math.floor(sinceMs / 1000) - 1,
    until: Math.ceil(Date.now() / 1000) + 1,
    filters: { type: ['container'], event: ['create'], label: [`${LABELS.sandbox}=1`, `${LABELS.pid}=${pid}`] },
  })) as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks)
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => String((JSON.parse(line) as { id?: string }).id));
}

/** Force-removes the sandbox containers of `pids` (cleanup that must not depend on the code under test). */
export async function removeContainersOf(pids: number[]): Promise<number> {
  const found = await sandboxContainers(pids);
  await Promise.all(
    found.map((c) =>
      docker
        .getContainer(c.id)
        .remove({ force: true, v: true })
        .catch(() => undefined),
    ),
  );
  return found.length;
}
