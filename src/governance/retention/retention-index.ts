import { randomUUID } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { threadHash } from '../../domain/thread-key.js';
import { purgeIdleEach, type ParticipantLookup } from './retention.js';
import type { IdleOptions, PurgedItem, RetentionSource } from '../../ports/retention-source.js';
import { dataDirLayout } from '../../domain/data-dir.js';

/** What the index keeps per thread. */
export const PARTICIPANT_LIMITS = {
  /** Users remembered per thread; past it the thread is marked `full` and later writers are not added. */
  maxUsersPerThread: 200,
  /** (thread, user) pairs this process remembers having written, so a busy thread is not rewritten per message. */
  maxCachedPairs: 10_000,
  /** A known pair is written again (to move `lastAtMs`) at most this often. */
  refreshMs: 60_000,
};

const entrySchema = z.object({
  key: z.string(),
  users: z.array(z.string()).max(PARTICIPANT_LIMITS.maxUsersPerThread),
  full: z.boolean().optional(),
  lastAtMs: z.number(),
});
type Entry = z.infer<typeof entrySchema>;

export interface ParticipantIndexOptions {
  /** `<dataDir>/retention/threads`. */
  dir: string;
  /** The file name of a thread: the same hash the sandbox names its files' directory by, so the two match. */
  nameOf: (key: string) => string;
  /** Told when a thread's list is full and a writer is not recorded (so a `--user` purge would miss it). */
  onFull?: (key: string, userId: string) => void;
}

/**
 * Who wrote in which thread, one small JSON file per thread, so `threadlab purge --user` can find a user's
 * threads: thread files and memory are stored under a hash of the thread key and say nothing of users.
 * It is itself personal data, so it is a retention source too: purged and aged out with its thread.
 */
export class ParticipantIndex implements ParticipantLookup, RetentionSource {
  readonly name = 'participant index';
  private readonly written = new Map<string, number>();
  private readonly writes = new Map<string, Promise<unknown>>();

  constructor(private readonly options: ParticipantIndexOptions) {}

  /** Notes that `userId` wrote in the thread `key`. */
  async record(key: string, userId: string, nowMs = Date.now()): Promise<void> {
    const pair = `${key}\n${userId}`;
    const last = this.written.get(pair);
    if (last !== undefined && nowMs - last < PARTICIPANT_LIMITS.refreshMs) return;
    await this.serialized(key, async () => {
      const entry = (await this.read(this.options.nameOf(key))) ?? { key, users: [], lastAtMs: nowMs };
      if (!entry.users.includes(userId)) {
        if (entry.users.length >= PARTICIPANT_LIMITS.maxUsersPerThread) {
          if (!entry.full) this.options.onFull?.(key, userId);
          entry.full = true;
        } else entry.users.push(userId);
      }
      entry.lastAtMs = Math.max(entry.lastAtMs, nowMs);
      await this.write(entry);
    });
    this.written.delete(pair);
    this.written.set(pair, nowMs);
    if (this.written.size > PARTICIPANT_LIMITS.maxCachedPairs) this.written.delete(this.written.keys().next().value!);
  }

  async threadsOf(userId: string): Promise<{ key: string; others: string[] }[]> {
    const found: { key: string; others: string[] }[] = [];
    for (const name of await this.names()) {
      const entry = await this.read(name);
      if (entry?.users.includes(userId))
        found.push({ key: entry.key, others: entry.users.filter((u) => u !== userId) });
    }
    return found;
  }

  /** The thread's key for a file name, when the index knows it (reports name threads by key). */
  async keyOf(name: string): Promise<string | undefined> {
    return (await this.read(name))?.key;
  }

  async purgeThread(key: string): Promise<PurgedItem[]> {
    const name = this.options.nameOf(key);
    const entry = await this.read(name);
    if (!entry) return [];
    await rm(this.file(name), { force: true });
    this.forget(key);
    return [{ what: 'index', thread: key, note: `${entry.users.length} user id(s)` }];
  }

  /** Keys of the threads nobody wrote in since `cutoffMs`. */
  async idleKeys(cutoffMs: number): Promise<string[]> {
    const keys: string[] = [];
    for (const name of await this.names()) {
      const entry = await this.read(name);
      if (entry && entry.lastAtMs < cutoffMs) keys.push(entry.key);
    }
    return keys;
  }

  /**
   * Entries of threads nobody wrote in since `cutoffMs`, within `options`; `keepKey` names threads (by key,
   * which the index knows) that stay whatever their age.
   */
  async purgeIdle(
    cutoffMs: number,
    options: IdleOptions & { keepKey?: (key: string) => boolean } = {},
  ): Promise<PurgedItem[]> {
    return purgeIdleEach({
      names: await this.names(),
      cutoffMs,
      idle: options,
      look: async (name) => {
        const entry = await this.read(name);
        if (entry && options.keepKey?.(entry.key)) return undefined;
        const lastWriteMs = entry?.lastAtMs ?? (await stat(this.file(name)).catch(() => undefined))?.mtimeMs;
        return lastWriteMs === undefined ? undefined : { lastWriteMs, entry };
      },
      remove: async (name, { entry }) => {
        await rm(this.file(name), { force: true });
        if (entry) this.forget(entry.key);
        return [{ what: 'index', thread: entry?.key ?? name }];
      },
    });
  }

  private forget(key: string): void {
    for (const pair of this.written.keys()) if (pair.startsWith(`${key}\n`)) this.written.delete(pair);
  }

  private async names(): Promise<string[]> {
    const entries = await readdir(this.options.dir).catch(() => [] as string[]);
    return entries.filter((e) => e.endsWith('.json')).map((e) => e.slice(0, -'.json'.length));
  }

  private file(name: string): string {
    return join(this.options.dir, `${name}.json`);
  }

  private async read(name: string): Promise<Entry | undefined> {
    try {
      const parsed = entrySchema.safeParse(JSON.parse(await readFile(this.file(name), 'utf8')));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  private async write(entry: Entry): Promise<void> {
    await mkdir(this.options.dir, { recursive: true, mode: 0o700 });
    const path = this.file(this.options.nameOf(entry.key));
    const tmp = `${path}.${randomUUID()}.tmp`;
    await writeFile(tmp, JSON.stringify(entry), { mode: 0o600 });
    await rename(tmp, path);
  }

  /** Runs `task` after the thread's earlier writes, so two messages at once do not lose a user. */
  private serialized(key: string, task: () => Promise<void>): Promise<void> {
    const next = (this.writes.get(key) ?? Promise.resolve()).then(task, task);
    const tail = next.catch(() => undefined);
    this.writes.set(key, tail);
    void tail.then(() => {
      if (this.writes.get(key) === tail) this.writes.delete(key);
    });
    return next;
  }
}

/** The index the bot writes and `threadlab purge` reads: `<dataDir>/retention/threads/<thread hash>.json`. */
export function createParticipantIndex(dataDir: string, onFull?: ParticipantIndexOptions['onFull']): ParticipantIndex {
  return new ParticipantIndex({
    dir: dataDirLayout(dataDir).participants,
    nameOf: threadHash,
    ...(onFull ? { onFull } : {}),
  });
}
