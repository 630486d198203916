import type Docker from 'dockerode';
import type { PurgedItem, RetentionSource } from '../src/ports/retention-source.js';
import { LABELS, POOL_SESSION } from './container-spec.js';
import { dockerUnreachable, isNotFound, isUnreachable } from './docker-errors.js';
import { threadHash } from '../src/domain/thread-key.js';

/** Every sandbox container on the engine, whichever bot process made it. */
async function sandboxContainers(docker: Docker): Promise<Docker.ContainerInfo[]> {
  try {
    return await docker.listContainers({ all: true, filters: { label: [`${LABELS.sandbox}=1`] } });
  } catch (err) {
    throw isUnreachable(err) ? dockerUnreachable(err) : err;
  }
}

/**
 * The hash of the thread a sandbox container belongs to, or undefined for a warm-pool container no thread
 * took. A pool container keeps the label `pool` once a thread takes it; its new name carries the hash
 * (container-launcher.ts `containerName`: `threadlab-<instance>-<hash>-<6 hex>`).
 */
function threadHashOf(info: Docker.ContainerInfo): string | undefined {
  const label = info.Labels?.[LABELS.session];
  if (label && label !== POOL_SESSION) return label;
  for (const name of info.Names ?? []) {
    const match = /-([0-9a-f]{24})-[0-9a-f]{6}$/.exec(name);
    if (match) return match[1]!;
  }
  return undefined;
}

/**
 * The hashes of the threads that have a sandbox container on this engine, whichever bot process holds it:
 * their files and variables live in the container and are written back to the host, so a timed sweep
 * leaves them (a running job always has one).
 */
export async function liveThreadHashes(docker: Docker): Promise<Set<string>> {
  const hashes = new Set<string>();
  for (const info of await sandboxContainers(docker)) {
    const hash = threadHashOf(info);
    if (hash) hashes.add(hash);
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

  /** `nameOf`: the label a thread's containers carry. @defaultValue threadHash (src/domain/thread-key.ts) */
  constructor(private readonly options: { docker: Docker; nameOf?: (key: string) => string }) {}

  async purgeThread(key: string): Promise<PurgedItem[]> {
    const hash = (this.options.nameOf ?? threadHash)(key);
    const removed: PurgedItem[] = [];
    for (const info of await sandboxContainers(this.options.docker)) {
      if (threadHashOf(info) !== hash) continue;
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
