/**
 * Threads the bot has joined (mentioned in, answered in), so later replies there continue the session
 * without a mention. Bounded, oldest forgotten first; ThreadMembership asks Slack about the others.
 */
export class KnownThreads {
  private readonly keys = new Set<string>();

  constructor(private readonly maxEntries = 10_000) {}

  add(key: string): void {
    this.keys.delete(key);
    this.keys.add(key);
    if (this.keys.size > this.maxEntries) {
      const oldest = this.keys.values().next().value;
      if (oldest !== undefined) this.keys.delete(oldest);
    }
  }

  has(key: string): boolean {
    return this.keys.has(key);
  }
}
