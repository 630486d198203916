import { hostname } from 'node:os';
import type Docker from 'dockerode';
import { processAlive } from '../src/ops/pid-lock.js';
import { LABELS } from './container-spec.js';
import { dockerUnreachable, isNotFound, isUnreachable } from './docker-errors.js';

export interface RemoveOrphansOptions {
  /** The running instance: its own containers are never touched. */
  olderThanInstance: string;
  /** Whether a bot process of this host is still running. @defaultValue a signal-0 probe */
  isProcessAlive?: (pid: number) => boolean;
  /** This host's name, compared with each container's host label. @defaultValue os.hostname() */
  host?: string;
}

/**
 * Removes sandbox containers left behind by bot instances that died: those of another instance whose
 * owner process on this host is gone, or (from another host) that are no longer running. Containers
 * of live sibling instances on this host are kept. Returns the names removed.
 */
export async function removeOrphans(docker: Docker, options: RemoveOrphansOptions): Promise<string[]> {
  const alive = options.isProcessAlive ?? processAlive;
  const host = options.host ?? hostname();
  let containers: Docker.ContainerInfo[];
  try {
    containers = await docker.listContainers({ all: true, filters: { label: [`${LABELS.sandbox}=1`] } });
  } catch (err) {
    throw isUnreachable(err) ? dockerUnreachable(err) : err;
  }
  const removed: string[] = [];
  for (const info of containers) {
    const labels = info.Labels ?? {};
    if (labels[LABELS.instance] === options.olderThanInstance) continue;
    const pid = Number(labels[LABELS.pid]);
    const sameHost = labels[LABELS.host] === host;
    const orphaned = sameHost ? !(Number.isInteger(pid) && pid > 0 && alive(pid)) : info.State !== 'running';
    if (!orphaned) continue;
    try {
      await docker.getContainer(info.Id).remove({ force: true, v: true });
      removed.push(info.Names[0]?.replace(/^\//, '') ?? info.Id);
    } catch (err) {
      if (!isNotFound(err) && !/already in progress/i.test(String(err))) throw err;
    }
  }
  return removed;
}
