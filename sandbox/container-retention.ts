import type Docker from 'dockerode';
import type { PurgedItem, RetentionSource } from '../src/governance/retention.js';
import { LABELS } from './container-spec.js';
import { dockerUnreachable, isNotFound, isUnreachable } from './docker-errors.js';

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
