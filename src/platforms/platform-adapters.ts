import { ThreadlabError } from '../domain/errors.js';
import type { Platform } from '../domain/thread-key.js';
import type { PlatformAdapter } from '../ports/platform-adapter.js';

/**
 * The platform adapters of this process, one per platform. The bot starts them and answers
 * stops and refusals through them; the thread worker answers jobs through the same set.
 */
export class PlatformAdapters {
  private readonly byPlatform = new Map<Platform, PlatformAdapter>();

  constructor(adapters: PlatformAdapter[] = []) {
    for (const adapter of adapters) this.add(adapter);
  }

  /** Adds an adapter, replacing any earlier one of its platform. */
  add(adapter: PlatformAdapter): void {
    this.byPlatform.set(adapter.platform, adapter);
  }

  /** The adapter of a platform; throws `internal` when this process has none (a wiring mistake). */
  get(platform: Platform): PlatformAdapter {
    const adapter = this.byPlatform.get(platform);
    if (!adapter) throw new ThreadlabError('internal', `No adapter for platform "${platform}" in this process.`);
    return adapter;
  }

  /** The adapter of a platform, or undefined when this process has none. */
  find(platform: Platform): PlatformAdapter | undefined {
    return this.byPlatform.get(platform);
  }

  all(): PlatformAdapter[] {
    return [...this.byPlatform.values()];
  }
}
