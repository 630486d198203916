import { Queue, Worker, type Job as BullJob, type RepeatOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { isSchedule, type Schedule, type ScheduleWhen } from '../../src/domain/schedule.js';
import type { Logger } from '../../src/logger.js';
import type { FiringHandler, Scheduler } from '../../src/ports/scheduler.js';
import { bullConnection, closeRedis, createRedis, throttledWarn } from './connection.js';

export interface BullMqSchedulerOptions {
  redisUrl: string;
  logger: Logger;
  /** @defaultValue 'threadlab' */
  keyPrefix?: string;
  /** @defaultValue 'schedules' */
  queueName?: string;
  /** Firings handed on at once by this process (each only queues a job). @defaultValue 4 */
  concurrency?: number;
}

interface FiringData {
  id: string;
}

/**
 * Schedules in Redis, fired by BullMQ job schedulers (`upsertJobScheduler`): they survive restarts, and each due
 * time is one BullMQ job that exactly one worker process takes. The schedule itself is kept in a hash beside it
 * (what `list` and `get` read); its failures in a row in another. Removing deletes the hash entry first, atomically,
 * so of several processes that stop the same schedule only one learns it removed it (and says so in the thread).
 */
export class BullMqScheduler implements Scheduler {
  private readonly queue: Queue<FiringData>;
  private readonly redis: Redis;
  private readonly recordsKey: string;
  private readonly failuresKey: string;
  private worker: Worker<FiringData> | undefined;

  constructor(private readonly o: BullMqSchedulerOptions) {
    const prefix = o.keyPrefix ?? 'threadlab';
    const name = o.queueName ?? 'schedules';
    this.queue = new Queue<FiringData>(name, { connection: bullConnection(o.redisUrl), prefix });
    this.queue.on('error', throttledWarn(o.logger, 'bullmq schedules queue error'));
    this.redis = createRedis(o.redisUrl, { logger: o.logger, purpose: 'schedules' });
    this.recordsKey = `${prefix}:${name}:tl:records`;
    this.failuresKey = `${prefix}:${name}:tl:failures`;
  }

  async add(schedule: Schedule): Promise<void> {
    await this.redis.hset(this.recordsKey, schedule.id, JSON.stringify(schedule));
    await this.queue.upsertJobScheduler(schedule.id, repeatOf(schedule), {
      name: 'fire',
      data: { id: schedule.id },
      opts: { removeOnComplete: true, removeOnFail: 100 },
    });
  }

  async remove(id: string): Promise<boolean> {
    const removed = (await this.redis.hdel(this.recordsKey, id)) === 1;
    await this.queue.removeJobScheduler(id);
    await this.redis.hdel(this.failuresKey, id);
    return removed;
  }

  async get(id: string): Promise<Schedule | undefined> {
    return parse(await this.redis.hget(this.recordsKey, id));
  }

  async list(max: number): Promise<Schedule[]> {
    const all = (await this.redis.hvals(this.recordsKey)).map(parse).filter((s): s is Schedule => s !== undefined);
    return all.sort((a, b) => a.createdAtMs - b.createdAtMs).slice(0, max);
  }

  async recordOutcome(id: string, ok: boolean): Promise<number> {
    if (ok) {
      await this.redis.hdel(this.failuresKey, id);
      return 0;
    }
    return this.redis.hincrby(this.failuresKey, id, 1);
  }

  async start(onFire: FiringHandler): Promise<void> {
    const { o } = this;
    this.worker = new Worker<FiringData>(
      this.queue.name,
      async (job: BullJob<FiringData>) => {
        const id = job.data?.id;
        if (typeof id !== 'string') return;
        const schedule = await this.get(id);
        // Removed meanwhile (cancelled or stopped by another process): the job scheduler goes too.
        if (!schedule) {
          await this.queue.removeJobScheduler(id);
          return;
        }
        await onFire({ schedule, dueAtMs: dueAtOf(job) });
      },
      {
        connection: bullConnection(o.redisUrl),
        prefix: o.keyPrefix ?? 'threadlab',
        concurrency: o.concurrency ?? 4,
      },
    );
    this.worker.on('error', throttledWarn(o.logger, 'bullmq schedules worker error'));
    await this.worker.waitUntilReady();
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.queue.close();
    await closeRedis(this.redis);
  }
}

/** BullMQ's repeat options of a schedule: an interval from its creation, or a cron pattern in its time zone. */
export function repeatOf(schedule: Schedule): Omit<RepeatOptions, 'key'> {
  return repeatOfWhen(schedule.when, schedule.createdAtMs);
}

function repeatOfWhen(when: ScheduleWhen, createdAtMs: number): Omit<RepeatOptions, 'key'> {
  // The first firing one interval after creation, like the in-process scheduler (not at once).
  if (when.kind === 'every') return { every: when.everyMs, startDate: createdAtMs + when.everyMs };
  return { pattern: `${when.minute} ${when.hour} * * ${[...when.days].sort().join(',')}`, tz: when.timeZone };
}

/** The due time of a scheduler's job: its id is `repeat:<scheduler id>:<due ms>`. */
function dueAtOf(job: BullJob<FiringData>): number {
  const due = /:(\d+)$/.exec(job.id ?? '');
  return due ? Number(due[1]) : job.timestamp + (job.delay ?? 0);
}

function parse(json: string | null): Schedule | undefined {
  if (json === null) return undefined;
  try {
    const value: unknown = JSON.parse(json);
    return isSchedule(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
