import type { ConversationStore } from '../../ports/conversation-store.js';
import type { PurgedItem, RetentionSource } from '../../ports/retention-source.js';

export interface MemoryRetentionOptions {
  store: ConversationStore;
  /** Keys of threads idle since the cutoff (from the participant index): the store cannot list its records. */
  idleKeys: (cutoffMs: number) => Promise<string[]>;
  /** Where the memory lives, for the report when nothing is found (`Redis`, `this process`). */
  where: string;
}

/**
 * Conversation memory and the export log of a thread (the ConversationStore). In Redis when REDIS_URL is set;
 * without it the memory lives in the bot process only, which a separate `threadlab purge` cannot reach (it
 * ends with the process and expires 7 days after the thread's last message).
 */
export class MemoryRetention implements RetentionSource {
  readonly name = 'conversation memory and export log';

  constructor(private readonly options: MemoryRetentionOptions) {}

  async purgeThread(key: string): Promise<PurgedItem[]> {
    const { store } = this.options;
    const [record, exportLog] = await Promise.all([store.get(key), store.readExport(key)]);
    if (!record && exportLog.entries.length === 0) return [];
    await store.delete(key);
    const notes = [];
    if (record) notes.push(`${record.history.length} memory entries`);
    if (exportLog.entries.length > 0) notes.push(`${exportLog.entries.length} export log entries`);
    return [{ what: 'memory', thread: key, note: `${notes.join(', ')} (${this.options.where})` }];
  }

  async purgeIdle(cutoffMs: number): Promise<PurgedItem[]> {
    const removed: PurgedItem[] = [];
    for (const key of await this.options.idleKeys(cutoffMs)) {
      const record = await this.options.store.get(key);
      // A thread the index saw idle may have been written since by another process: its memory says.
      if (record && record.updatedAtMs >= cutoffMs) continue;
      removed.push(...(await this.purgeThread(key)));
    }
    return removed;
  }
}
