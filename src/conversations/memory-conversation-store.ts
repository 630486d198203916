import type {
  ExportEntry,
  ExportLog,
  ExportLogLimits,
  ConversationRecord,
  ConversationStore,
} from '../ports/conversation-store.js';

export interface MemoryConversationStoreOptions {
  /** Clock in epoch milliseconds, replaceable in tests. @defaultValue Date.now */
  now?: () => number;
  /** How often expired records are swept, in milliseconds; 0 disables the sweep. @defaultValue 60_000 */
  sweepIntervalMs?: number;
}

interface Slot {
  record: ConversationRecord;
  expiresAtMs: number;
}

interface ExportSlot {
  /** Entries as JSON, so their size is what Redis would hold and nobody shares their objects. */
  entries: string[];
  bytes: number;
  dropped: number;
  expiresAtMs: number;
}

/**
 * The embedded ConversationStore: records live in this process only and expire `ttlMs` after their last
 * write. Records are copied in and out so callers cannot mutate stored state by accident.
 */
export class MemoryConversationStore implements ConversationStore {
  private readonly slots = new Map<string, Slot>();
  private readonly exports = new Map<string, ExportSlot>();
  private readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout | undefined;

  constructor(options: MemoryConversationStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    const sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
    if (sweepIntervalMs > 0) {
      this.sweeper = setInterval(() => this.sweep(), sweepIntervalMs);
      this.sweeper.unref();
    }
  }

  async get(key: string): Promise<ConversationRecord | undefined> {
    const slot = this.slots.get(key);
    if (!slot) return undefined;
    if (slot.expiresAtMs <= this.now()) {
      this.slots.delete(key);
      return undefined;
    }
    return structuredClone(slot.record);
  }

  async put(key: string, record: ConversationRecord, ttlMs: number): Promise<void> {
    this.slots.set(key, { record: structuredClone(record), expiresAtMs: this.now() + ttlMs });
  }

  async delete(key: string): Promise<void> {
    this.slots.delete(key);
    this.exports.delete(key);
  }

  async appendExport(key: string, entry: ExportEntry, limits: ExportLogLimits): Promise<void> {
    const json = JSON.stringify(entry);
    const live = this.exports.get(key);
    const slot = live && live.expiresAtMs > this.now() ? live : { entries: [], bytes: 0, dropped: 0, expiresAtMs: 0 };
    slot.entries.push(json);
    slot.bytes += Buffer.byteLength(json);
    while (slot.entries.length > limits.maxEntries || (slot.bytes > limits.maxBytes && slot.entries.length > 0)) {
      slot.bytes -= Buffer.byteLength(slot.entries.shift()!);
      slot.dropped += 1;
    }
    slot.expiresAtMs = this.now() + limits.ttlMs;
    this.exports.set(key, slot);
  }

  async readExport(key: string): Promise<ExportLog> {
    const slot = this.exports.get(key);
    if (!slot || slot.expiresAtMs <= this.now()) return { entries: [], dropped: 0 };
    return { entries: slot.entries.map((e) => JSON.parse(e) as ExportEntry), dropped: slot.dropped };
  }

  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.slots.clear();
    this.exports.clear();
  }

  /** Number of stored records, expired ones included until swept (for tests and metrics). */
  get size(): number {
    return this.slots.size;
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, slot] of this.slots) if (slot.expiresAtMs <= now) this.slots.delete(key);
    for (const [key, slot] of this.exports) if (slot.expiresAtMs <= now) this.exports.delete(key);
  }
}
