import type Docker from 'dockerode';
import type { PurgedItem, RetentionSource } from '../src/governance/retention.js';
import { LABELS, POOL_SESSION } from './container-spec.js';
import { dockerUnreachable, isNotFound, isUnreachable } from './docker-errors.js';

/**
 * The hashes of the threads that have a sandbox container on this engine, whichever bot process holds it:
 * their files and variables live in the container and are written back to the host, so a timed sweep
 * leaves them (a running job always has one). A pool container taken by a thread carries the hash in its name.
 */
export async function liveThreadHashes(docker: Docker): Promise<Set<string>> {
  let containers: Docker.ContainerInfo[];
  try {
    containers = await docker.listContainers({ all: true, filters: { label: [`${LABELS.sandbox}=1`] } });
  } catch (err) {
    throw isUnreachable(err) ? dockerUnreachable(err) : err;
  }
  const hashes = new Set<string>();
  for (const info of containers) {
    const label = info.Labels?.[LABELS.session];
    if (label && label !== POOL_SESSION) hashes.add(label);
    for (const name of info.Names ?? []) {
      const match = /-([0-9a-f]{24})-[0-9a-f]{6}$/.exec(name);
      if (match) hashes.add(match[1]!);
    }
  }
  return hashes;
}

/**
 * A thread's live sandbox container, wherever a bot process on this engine holds it. Purging a thread
 * removes it too: its /mnt/data and variables live in the container's memory, and the bot would otherwise
 * write them back to the host copy (files after the next run, saved state on recycle).
 */
export class ContainerRetention implements RetentionSource {
  readonly name = 'live sandbox container';

  constructor(private readonly options: { docker: Docker; nameOf: (key: string) => string }) {}

  async purgeThread(key: string): Promise<PurgedItem[]> {
    const hash = this.options.nameOf(key);
    let containers: Docker.ContainerInfo[];
    try {
      containers = await this.options.docker.listContainers({ all: true, filters: { label: [`${LABELS.sandbox}=1`] } });
    } catch (err) {
      throw isUnreachable(err) ? dockerUnreachable(err) : err;
    }
    const removed: PurgedItem[] = [];
    for (const info of containers) {
      // A warm-pool container keeps the label `pool` once a thread takes it; its new name carries the hash.
      const mine = info.Labels?.[LABELS.session] === hash || (info.Names ?? []).some((n) => n.includes(`-${hash}-`));
      if (!mine) continue;
      try {
        await this.options.docker.getContainer(info.Id).remove({ force: true });
        removed.push({ what: 'container', thread: key, note: (info.Names?.[0] ?? info.Id).replace(/^\//, '') });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    return removed;
  }

  /** Containers of idle threads are the bot's to recycle (idle TTL, maximum age): nothing to do here. */
  async purgeIdle(): Promise<PurgedItem[]> {
    return [];
  }
}
