import { randomUUID } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { BlobMeta, WebMessage, WebThread } from './types.js';
import { dataDirLayout } from '../../src/domain/data-dir.js';

const ID = /^[A-Za-z0-9_-]{1,80}$/;

/** Whether `id` is a safe thread, message or blob id (it becomes part of a path). */
export function isSafeId(id: string): boolean {
  return ID.test(id);
}

async function writeAtomic(path: string, data: string | Buffer): Promise<void> {
  const tmp = `${path}.${randomUUID()}.tmp`;
  await writeFile(tmp, data);
  await rename(tmp, path);
}

/** One page of a thread's history. */
export interface MessagePage {
  /** Oldest first. */
  messages: WebMessage[];
  /** Whether older messages exist before the first one. */
  hasMore: boolean;
}

/** A thread title from its first message: the text without code fences, else the uploaded names. */
export function titleOf(message: WebMessage): string {
  const text = message.text
    .replace(/^\s*```[^\n]*$/gm, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const names = (message.attachments ?? []).map((a) => a.name).join(', ');
  return (text || names).slice(0, 80);
}

/** Where the web chat keeps its history in THREADLAB_DATA_DIR ({@link WebThreadStore}'s root). */
export function webHistoryDir(dataDir: string): string {
  return dataDirLayout(dataDir).webChat;
}

/**
 * Threads, messages and blobs (uploads and reply files) of the web chat on disk, so a restart keeps
 * the history. Layout under `root`: `threads/<id>/thread.json`, `threads/<id>/messages.jsonl`,
 * `blobs/<id>` with `blobs/<id>.json` beside it.
 */
export class WebThreadStore {
  private readonly threads = new Map<string, WebThread>();
  /** The tail of each thread's chain of writes: appends, title updates and deletion never interleave. */
  private readonly writes = new Map<string, Promise<unknown>>();

  constructor(private readonly root: string) {}

  /** Where uploads are streamed before they become blobs (same file system, so adopting is a rename). */
  get tmpDir(): string {
    return join(this.root, 'tmp');
  }

  /** Creates the directories, removes uploads a crash left half-written, and loads the thread list. */
  async init(): Promise<void> {
    await mkdir(join(this.root, 'threads'), { recursive: true });
    await mkdir(join(this.root, 'blobs'), { recursive: true });
    await rm(this.tmpDir, { recursive: true, force: true });
    await mkdir(this.tmpDir, { recursive: true, mode: 0o700 });
    for (const id of await readdir(join(this.root, 'threads'))) {
      if (!isSafeId(id)) continue;
      try {
        const thread = JSON.parse(await readFile(this.threadFile(id), 'utf8')) as WebThread;
        this.threads.set(thread.id, thread);
      } catch {
        // A directory without a readable thread.json is a half-deleted thread: skip it.
      }
    }
  }

  listThreads(): WebThread[] {
    return [...this.threads.values()].filter((t) => this.present(t.id)).sort((a, b) => b.updatedAtMs - a.updatedAtMs);
  }

  getThread(id: string): WebThread | undefined {
    return this.threads.has(id) && this.present(id) ? this.threads.get(id) : undefined;
  }

  /**
   * Whether a known thread is still on disk; one removed by another hand (`threadlab purge`, the retention
   * sweep of THREADLAB_RETENTION_WEB_HISTORY) is forgotten, so the page and the API see it gone (404), and
   * a message is not accepted into a thread whose history no longer exists.
   */
  private present(id: string): boolean {
    if (existsSync(this.threadFile(id))) return true;
    this.threads.delete(id);
    return false;
  }

  async createThread(title = ''): Promise<WebThread> {
    const now = Date.now();
    const thread: WebThread = { id: randomUUID(), title: title.slice(0, 120), createdAtMs: now, updatedAtMs: now };
    await mkdir(join(this.root, 'threads', thread.id), { recursive: true });
    await writeAtomic(this.threadFile(thread.id), JSON.stringify(thread));
    this.threads.set(thread.id, thread);
    return thread;
  }

  /** Removes a thread with its messages and every blob they reference. */
  async deleteThread(id: string): Promise<boolean> {
    if (!this.threads.has(id)) return false;
    return this.serialized(id, () => this.removeThread(id));
  }

  private async removeThread(id: string): Promise<boolean> {
    if (!this.threads.has(id)) return false;
    // Every line, revisions' replaced versions too: their blobs go with the thread.
    const lines: WebMessage[] = [];
    for await (const line of this.eachMessage(id)) lines.push(line);
    const blobIds = lines.flatMap((m) =>
      [...(m.attachments ?? []), ...(m.images ?? []), ...(m.files ?? [])].map((b) => b.id),
    );
    this.threads.delete(id);
    await rm(join(this.root, 'threads', id), { recursive: true, force: true });
    for (const blobId of blobIds) await this.removeBlob(blobId);
    return true;
  }

  /** The whole history, oldest first (tests and small threads; the API reads it a page at a time). */
  async messages(threadId: string): Promise<WebMessage[]> {
    const messages: WebMessage[] = [];
    const at = new Map<string, number>();
    for await (const message of this.eachMessage(threadId)) {
      const index = at.get(message.id);
      if (index !== undefined) messages[index] = message;
      else if (!message.revisedAtMs) at.set(message.id, messages.push(message) - 1);
    }
    return messages;
  }

  /**
   * At most `limit` messages, oldest first: the latest ones, or the latest before the message `before`.
   * The file is read line by line, so a long history never sits in memory whole. `undefined` when
   * `before` names no message of the thread.
   */
  async page(threadId: string, options: { limit: number; before?: string }): Promise<MessagePage | undefined> {
    const window: WebMessage[] = [];
    let hasMore = false;
    let found = options.before === undefined;
    for await (const message of this.eachMessage(threadId)) {
      // A revision replaces its message where it stands (it may come after `before`, so the file is read
      // to its end); a revision of a message outside the window is not shown.
      const index = window.findIndex((m) => m.id === message.id);
      if (index >= 0) {
        window[index] = message;
        continue;
      }
      if (found && options.before !== undefined) continue;
      if (message.id === options.before) {
        found = true;
        continue;
      }
      if (message.revisedAtMs) continue;
      window.push(message);
      if (window.length > options.limit) {
        window.shift();
        hasMore = true;
      }
    }
    return found ? { messages: window, hasMore } : undefined;
  }

  /** The message `id` of a thread, read through without holding the history. */
  async findMessage(threadId: string, id: string): Promise<WebMessage | undefined> {
    let found: WebMessage | undefined;
    for await (const message of this.eachMessage(threadId)) if (message.id === id) found = message;
    return found;
  }

  /** The thread's messages in order, read a line at a time. */
  private async *eachMessage(threadId: string): AsyncIterable<WebMessage> {
    if (!this.threads.has(threadId)) return;
    const file = createReadStream(join(this.root, 'threads', threadId, 'messages.jsonl'), 'utf8');
    const lines = createInterface({ input: file, crlfDelay: Infinity });
    try {
      for await (const line of lines) {
        if (line.trim() === '') continue;
        // A line may be half-written when this read overlaps an append, or cut short by a crash: such a
        // line is not a message (yet), so it is skipped rather than failing the whole history.
        let message: WebMessage;
        try {
          message = JSON.parse(line) as WebMessage;
        } catch {
          continue;
        }
        yield message;
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    } finally {
      lines.close();
      file.destroy();
    }
  }

  /** Appends a message; the first user text becomes the thread's title. False when the thread is gone. */
  async appendMessage(message: WebMessage): Promise<boolean> {
    return this.serialized(message.threadId, async () => {
      const thread = this.getThread(message.threadId);
      if (!thread) return false;
      // One write call per line: a line is never interleaved with another append's.
      await appendFile(join(this.root, 'threads', thread.id, 'messages.jsonl'), `${JSON.stringify(message)}\n`);
      thread.updatedAtMs = Math.max(thread.updatedAtMs, message.createdAtMs);
      if (!thread.title && message.role === 'user' && !message.command) thread.title = titleOf(message);
      await writeAtomic(this.threadFile(thread.id), JSON.stringify(thread));
      return true;
    });
  }

  /** Moves an upload streamed to {@link tmpDir} into the blobs of a thread. */
  async adoptBlob(
    threadId: string,
    file: { name: string; mime: string; path: string; bytes: number },
  ): Promise<BlobMeta> {
    const meta: BlobMeta = {
      id: randomUUID(),
      threadId,
      name: file.name,
      mime: file.mime,
      bytes: file.bytes,
      createdAtMs: Date.now(),
    };
    await rename(file.path, this.blobPath(meta.id));
    await writeAtomic(`${this.blobPath(meta.id)}.json`, JSON.stringify(meta));
    return meta;
  }

  /** Removes one blob and its metadata (an upload whose message was refused). */
  async removeBlob(id: string): Promise<void> {
    if (!isSafeId(id)) return;
    await rm(this.blobPath(id), { force: true });
    await rm(`${this.blobPath(id)}.json`, { force: true });
  }

  /** Runs `task` after every earlier write of the thread has settled. */
  private serialized<T>(threadId: string, task: () => Promise<T>): Promise<T> {
    const previous = this.writes.get(threadId) ?? Promise.resolve();
    const next = previous.then(task, task);
    const tail = next.catch(() => undefined);
    this.writes.set(threadId, tail);
    void tail.then(() => {
      if (this.writes.get(threadId) === tail) this.writes.delete(threadId);
    });
    return next;
  }

  /** Stores bytes for a thread and returns their metadata (the id names the blob). */
  async putBlob(threadId: string, file: { name: string; mime: string; data: Buffer }): Promise<BlobMeta> {
    const meta: BlobMeta = {
      id: randomUUID(),
      threadId,
      name: file.name,
      mime: file.mime,
      bytes: file.data.length,
      createdAtMs: Date.now(),
    };
    await writeAtomic(this.blobPath(meta.id), file.data);
    await writeAtomic(`${this.blobPath(meta.id)}.json`, JSON.stringify(meta));
    return meta;
  }

  async blobMeta(id: string): Promise<BlobMeta | undefined> {
    if (!isSafeId(id)) return undefined;
    try {
      return JSON.parse(await readFile(`${this.blobPath(id)}.json`, 'utf8')) as BlobMeta;
    } catch {
      return undefined;
    }
  }

  /** Size on disk of a blob, or undefined when it does not exist. */
  async blobSize(id: string): Promise<number | undefined> {
    if (!isSafeId(id)) return undefined;
    return stat(this.blobPath(id)).then(
      (s) => s.size,
      () => undefined,
    );
  }

  blobPath(id: string): string {
    if (!isSafeId(id)) throw new Error(`unsafe blob id ${JSON.stringify(id)}`);
    return join(this.root, 'blobs', id);
  }

  private threadFile(id: string): string {
    return join(this.root, 'threads', id, 'thread.json');
  }
}
