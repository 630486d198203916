import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type {
  ExportEntry,
  ExportLog,
  ExportLogLimits,
  ConversationRecord,
  ConversationStore,
} from '../../ports/conversation-store.js';
import { threadHash } from '../../domain/thread-key.js';
import { dataDirLayout } from '../../domain/data-dir.js';

/** Marks are kept this long: past the longest a memory store keeps an untouched thread (7 days). */
const MARK_LIFETIME_MS = 30 * 86_400_000;
const HASH = /^[0-9a-f]{24}$/;

/**
 * Purge marks: how `threadlab purge`, a process of its own, reaches conversation memory and export logs that
 * live in a running process (the bot's or the CLI daemon's, without REDIS_URL). The purge leaves one small
 * file per purged thread in `<THREADLAB_DATA_DIR>/purged`, named by the key's hash and holding when it
 * was purged; a running process's store ({@link PurgeHonouringStore}) looks for it before it answers.
 */
export class PurgeMarks {
  private readonly dir: string;

  constructor(dataDir: string) {
    this.dir = dataDirLayout(dataDir).purgeMarks;
  }

  /** Marks threads (by key or by hash) purged now; marks past their lifetime are swept. */
  async mark(threads: Iterable<string>, nowMs = Date.now()): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    for (const thread of new Set(threads)) {
      const hash = HASH.test(thread) ? thread : threadHash(thread);
      await writeFile(join(this.dir, hash), JSON.stringify({ purgedAtMs: nowMs }), { mode: 0o600 });
    }
    for (const name of await readdir(this.dir)) {
      const info = await stat(join(this.dir, name)).catch(() => undefined);
      if (info && info.mtimeMs < nowMs - MARK_LIFETIME_MS) await rm(join(this.dir, name), { force: true });
    }
  }

  /** When the thread was last purged (epoch ms), or undefined. */
  async purgedAtMs(key: string): Promise<number | undefined> {
    const text = await readFile(join(this.dir, threadHash(key)), 'utf8').catch(() => undefined);
    if (text === undefined) return undefined;
    try {
      const at = (JSON.parse(text) as { purgedAtMs?: unknown }).purgedAtMs;
      return typeof at === 'number' && Number.isFinite(at) ? at : undefined;
    } catch {
      return undefined;
    }
  }
}

/**
 * A ConversationStore in this process that honours purge marks: before it answers for a thread, memory and an
 * export log begun before the thread's latest purge are deleted, so a purged thread's runs are neither
 * exported nor remembered. What was begun after the purge (a new message) stays.
 */
export class PurgeHonouringStore implements ConversationStore {
  constructor(
    private readonly inner: ConversationStore,
    private readonly marks: PurgeMarks,
  ) {}

  async get(key: string): Promise<ConversationRecord | undefined> {
    await this.honour(key);
    return this.inner.get(key);
  }

  async put(key: string, record: ConversationRecord, ttlMs: number): Promise<void> {
    await this.honour(key);
    await this.inner.put(key, record, ttlMs);
  }

  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }

  async appendExport(key: string, entry: ExportEntry, limits: ExportLogLimits): Promise<void> {
    await this.honour(key);
    await this.inner.appendExport(key, entry, limits);
  }

  async readExport(key: string): Promise<ExportLog> {
    await this.honour(key);
    return this.inner.readExport(key);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private async honour(key: string): Promise<void> {
    const purgedAtMs = await this.marks.purgedAtMs(key);
    if (purgedAtMs === undefined) return;
    const [record, log] = await Promise.all([this.inner.get(key), this.inner.readExport(key)]);
    const begunBefore = (atMs: number | undefined) => atMs !== undefined && atMs <= purgedAtMs;
    if (begunBefore(record?.createdAtMs) || begunBefore(log.entries[0]?.atMs)) await this.inner.delete(key);
  }
}
