/**
 * Remembers whom the bot already told, per user and place, that they may not use it there: the notice is
 * sent once, not on every message. Bounded: past `maxEntries` the oldest is forgotten (that user may be
 * told once more, which is harmless), so a flood of users or channels cannot grow it.
 */
export class AccessNotices {
  private readonly told = new Set<string>();

  /** @param maxEntries - users × places remembered. @defaultValue 10000 */
  constructor(private readonly maxEntries = 10_000) {}

  /** True the first time `key` is seen (the caller sends the notice), false after. */
  firstTime(key: string): boolean {
    if (this.told.has(key)) return false;
    this.told.add(key);
    if (this.told.size > this.maxEntries) this.told.delete(this.told.values().next().value!);
    return true;
  }

  get size(): number {
    return this.told.size;
  }
}
