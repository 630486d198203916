import type { SessionRecord, SessionStore } from '../ports/session-store.js';

export interface MemorySessionStoreOptions {
  /** Clock in epoch milliseconds, replaceable in tests. @defaultValue Date.now */
  now?: () => number;
  /** How often expired records are swept, in milliseconds; 0 disables the sweep. @defaultValue 60_000 */
  sweepIntervalMs?: number;
}

interface Slot {
  record: SessionRecord;
  expiresAtMs: number;
}

/**
 * The embedded SessionStore: records live in this process only and expire `ttlMs` after their last
 * write. Records are copied in and out so callers cannot mutate stored state by accident.
 */
export class MemorySessionStore implements SessionStore {
  private readonly slots = new Map<string, Slot>();
  private readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout | undefined;

  constructor(options: MemorySessionStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    const sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
    if (sweepIntervalMs > 0) {
      this.sweeper = setInterval(() => this.sweep(), sweepIntervalMs);
      this.sweeper.unref();
    }
  }

  async get(key: string): Promise<SessionRecord | undefined> {
    const slot = this.slots.get(key);
    if (!slot) return undefined;
    if (slot.expiresAtMs <= this.now()) {
      this.slots.delete(key);
      return undefined;
    }
    return structuredClone(slot.record);
  }

  async put(key: string, record: SessionRecord, ttlMs: number): Promise<void> {
    this.slots.set(key, { record: structuredClone(record), expiresAtMs: this.now() + ttlMs });
  }

  async delete(key: string): Promise<void> {
    this.slots.delete(key);
  }

  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.slots.clear();
  }

  /** Number of stored records, expired ones included until swept (for tests and metrics). */
  get size(): number {
    return this.slots.size;
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, slot] of this.slots) if (slot.expiresAtMs <= now) this.slots.delete(key);
  }
}
