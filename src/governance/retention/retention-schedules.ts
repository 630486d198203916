import type { Scheduler } from '../../ports/scheduler.js';
import type { PurgedItem, RetentionSource } from '../../ports/retention-source.js';

/** Most schedules read when a thread's are looked for (the core keeps far fewer: THREADLAB_SCHEDULES). */
const MAX_LISTED = 20_000;

export interface ScheduleRetentionOptions {
  scheduler: Scheduler;
  /** Keys of threads idle since the cutoff (from the participant index). */
  idleKeys: (cutoffMs: number) => Promise<string[]>;
}

/**
 * A thread's schedules (they hold their creator's id and name, and a scheduled question): in Redis when REDIS_URL
 * is set; without it they live in the bot process only, out of a separate `threadlab purge`'s reach, and end with it.
 */
export class ScheduleRetention implements RetentionSource {
  readonly name = 'schedules';

  constructor(private readonly options: ScheduleRetentionOptions) {}

  async purgeThread(key: string): Promise<PurgedItem[]> {
    const { scheduler } = this.options;
    const schedules = (await scheduler.list(MAX_LISTED)).filter((s) => s.threadKey === key);
    let removed = 0;
    for (const s of schedules) if (await scheduler.remove(s.id)) removed += 1;
    return removed > 0 ? [{ what: 'schedules', thread: key, note: `${removed} schedule(s)` }] : [];
  }

  async purgeIdle(cutoffMs: number): Promise<PurgedItem[]> {
    const idle = new Set(await this.options.idleKeys(cutoffMs));
    const removed: PurgedItem[] = [];
    const keys = new Set((await this.options.scheduler.list(MAX_LISTED)).map((s) => s.threadKey));
    for (const key of keys) if (idle.has(key)) removed.push(...(await this.purgeThread(key)));
    return removed;
  }
}
