import { createReadStream } from 'node:fs';
import { readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseThreadKey, threadKey } from '../../src/domain/thread-key.js';
import { threadHash } from '../../src/domain/thread-key.js';
import type { SurfaceHistory } from '../../src/governance/retention/retention-sweeper.js';
import { purgeIdleEach } from '../../src/governance/retention/retention.js';
import type { IdleOptions, PurgedItem, RetentionSource } from '../../src/ports/retention-source.js';
import { isSafeId, webHistoryDir } from './thread-store.js';
import type { WebMessage, WebThread } from './types.js';

/** Ids of the blobs (uploads, images, reply files) a thread's messages name, revisions included. */
async function blobIdsOf(messagesFile: string): Promise<{ messages: number; blobs: Set<string> }> {
  const blobs = new Set<string>();
  const ids = new Set<string>();
  const lines = createInterface({ input: createReadStream(messagesFile, 'utf8'), crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      let message: WebMessage;
      try {
        message = JSON.parse(line) as WebMessage;
      } catch {
        continue; // a line cut short by a crash names nothing
      }
      ids.add(message.id);
      for (const b of [...(message.attachments ?? []), ...(message.images ?? []), ...(message.files ?? [])])
        blobs.add(b.id);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return { messages: ids.size, blobs };
}

/**
 * The web chat's history on disk ({@link webHistoryDir}, the layout of WebThreadStore): a thread's directory with
 * its messages, and the blobs they name. A web thread's key is `web:local:<channel>:<thread id>`.
 */
export class WebHistoryRetention implements RetentionSource {
  readonly name = 'web chat history';

  constructor(private readonly root: string) {}

  async purgeThread(key: string): Promise<PurgedItem[]> {
    let id: string;
    try {
      const ref = parseThreadKey(key);
      if (ref.platform !== 'web') return [];
      id = ref.thread;
    } catch {
      return [];
    }
    return isSafeId(id) ? this.removeThread(id, key) : [];
  }

  async purgeIdle(cutoffMs: number, idle?: IdleOptions): Promise<PurgedItem[]> {
    // The web chat's keys (adapters/web/map-request.ts): the report names the thread as purge --thread takes it.
    const keyOf = (id: string) => threadKey({ platform: 'web', workspace: 'local', channel: 'web', thread: id });
    const ids = await readdir(join(this.root, 'threads')).catch(() => [] as string[]);
    return purgeIdleEach({
      names: ids.filter(isSafeId),
      cutoffMs,
      idle,
      // A thread with a live session may have a job running whose answer is still to be stored.
      hashOf: (id) => threadHash(keyOf(id)),
      // A thread whose record cannot be read is as good as gone: removed with what it names.
      look: async (id) => ({ lastWriteMs: (await this.thread(id))?.updatedAtMs ?? Number.NEGATIVE_INFINITY }),
      remove: (id) => this.removeThread(id, keyOf(id)),
    });
  }

  private async thread(id: string): Promise<WebThread | undefined> {
    try {
      return JSON.parse(await readFile(join(this.root, 'threads', id, 'thread.json'), 'utf8')) as WebThread;
    } catch {
      return undefined;
    }
  }

  private async removeThread(id: string, label: string): Promise<PurgedItem[]> {
    const dir = join(this.root, 'threads', id);
    const exists = await readdir(dir).then(
      () => true,
      () => false,
    );
    if (!exists) return [];
    const { messages, blobs } = await blobIdsOf(join(dir, 'messages.jsonl'));
    await rm(dir, { recursive: true, force: true });
    for (const blob of blobs) {
      if (!isSafeId(blob)) continue;
      await rm(join(this.root, 'blobs', blob), { force: true });
      await rm(join(this.root, 'blobs', `${blob}.json`), { force: true });
    }
    return [{ what: 'web history', thread: label, note: `${messages} messages, ${blobs.size} files` }];
  }
}

/** The web chat's history in THREADLAB_DATA_DIR, as `threadlab purge` and the timed sweep remove it. */
export function webHistoryRetention(dataDir: string): WebHistoryRetention {
  return new WebHistoryRetention(webHistoryDir(dataDir));
}

/**
 * The web chat's history as the timed sweep sees it (THREADLAB_RETENTION_WEB_HISTORY; unset keeps it), or none
 * when the web chat is off.
 */
export function webSurfaceHistories(config: {
  dataDir: string;
  web: { enabled: boolean };
  retention: { webHistoryMs?: number | undefined };
}): SurfaceHistory[] {
  if (!config.web.enabled) return [];
  return [
    {
      kind: 'web history',
      maxAgeMs: config.retention.webHistoryMs,
      owns: (key) => key.startsWith('web:'),
      source: () => webHistoryRetention(config.dataDir),
    },
  ];
}
