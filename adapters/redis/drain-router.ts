import { Queue } from 'bullmq';
import type { Logger } from '../../src/logger.js';
import { bullConnection, throttledWarn } from './connection.js';

export interface DrainData {
  thread: string;
}

/** Options every drain job gets: retried on errors with a short backoff, removed once done. */
const JOB_OPTIONS = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 500 },
  removeOnComplete: true,
  removeOnFail: 1000,
} as const;

/**
 * Adds drain jobs to the shared queue or to one worker's own queue (`<name>-w-<workerId>`), the
 * latter when that worker holds the thread's container (affinity).
 */
export class DrainRouter {
  readonly shared: Queue<DrainData>;
  private readonly personal = new Map<string, Queue<DrainData>>();

  constructor(private readonly o: { redisUrl: string; name: string; prefix: string; logger: Logger }) {
    this.shared = this.open(o.name);
  }

  /** The BullMQ queue name a worker takes its affinity jobs from. */
  personalName(workerId: string): string {
    return `${this.o.name}-w-${workerId}`;
  }

  async add(thread: string, jobId: string, workerId = ''): Promise<void> {
    await this.queueFor(workerId).add('drain', { thread }, { ...JOB_OPTIONS, jobId });
  }

  /** A worker's own queue (opened on first use and kept). */
  queueFor(workerId: string): Queue<DrainData> {
    if (workerId === '') return this.shared;
    let queue = this.personal.get(workerId);
    if (!queue) {
      queue = this.open(this.personalName(workerId));
      this.personal.set(workerId, queue);
    }
    return queue;
  }

  /** Closes and forgets a worker's queue, after deleting it from Redis (`obliterate`). */
  async drop(workerId: string): Promise<void> {
    const queue = this.queueFor(workerId);
    this.personal.delete(workerId);
    try {
      await queue.obliterate({ force: true });
    } finally {
      await queue.close();
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.shared, ...this.personal.values()].map((q) => q.close()));
    this.personal.clear();
  }

  private open(name: string): Queue<DrainData> {
    const queue = new Queue<DrainData>(name, { connection: bullConnection(this.o.redisUrl), prefix: this.o.prefix });
    queue.on('error', throttledWarn(this.o.logger, `bullmq queue ${name} error`));
    return queue;
  }
}
