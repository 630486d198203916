import type { Redis } from 'ioredis';
import type { Logger } from '../../src/logger.js';

export interface WorkerRegistryOptions {
  redis: Redis;
  /** `${keyPrefix}:${queueName}:tl` */
  prefix: string;
  workerId: string;
  logger: Logger;
  /** How often the heartbeat is written and dead peers are looked for. @defaultValue 3000 */
  heartbeatIntervalMs?: number;
  /** A worker whose heartbeat is older than this is dead. @defaultValue 10_000 */
  heartbeatTtlMs?: number;
  /** Hands a dead worker's affinity jobs to the others; called by exactly one live worker. */
  onDeadWorker: (workerId: string) => Promise<void>;
}

/** Claims a dead worker once: only the caller that removes it from the set handles it. */
const CLAIM = `
if redis.call('EXISTS', ARGV[1] .. ':hb:' .. ARGV[2]) == 1 then return 0 end
return redis.call('SREM', ARGV[1] .. ':workers', ARGV[2])
`;

/**
 * Heartbeats of live workers, so gateways route a thread to its worker only while it lives, and
 * a sweep by the live workers that moves a dead worker's affinity jobs back to the shared queue.
 */
export class WorkerRegistry {
  private timer: NodeJS.Timeout | undefined;
  private readonly intervalMs: number;
  private readonly ttlMs: number;
  private sweeping = false;
  private draining = false;

  constructor(private readonly o: WorkerRegistryOptions) {
    this.intervalMs = o.heartbeatIntervalMs ?? 3000;
    this.ttlMs = o.heartbeatTtlMs ?? 10_000;
    if (!('tlClaimWorker' in o.redis)) o.redis.defineCommand('tlClaimWorker', { numberOfKeys: 0, lua: CLAIM });
  }

  async start(): Promise<void> {
    await this.o.redis.sadd(`${this.o.prefix}:workers`, this.o.workerId);
    await this.beat();
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
    void this.sweep();
  }

  /**
   * Shutdown has begun: new affinity jobs go to the shared queue from now on, but the heartbeat goes
   * on until {@link stop}, so peers do not take this worker for dead and re-run the jobs it is still
   * finishing (each would then run twice).
   */
  async drain(): Promise<void> {
    this.draining = true;
    await this.o.redis.set(`${this.o.prefix}:drain:${this.o.workerId}`, '1', 'PX', this.ttlMs);
  }

  /** Stops the heartbeat: from now on peers may take this worker for dead and hand its jobs on. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.o.redis.del(`${this.o.prefix}:hb:${this.o.workerId}`, `${this.o.prefix}:drain:${this.o.workerId}`);
  }

  /** Forgets this worker after its own queue was emptied. */
  async leave(): Promise<void> {
    await this.o.redis.srem(`${this.o.prefix}:workers`, this.o.workerId);
  }

  private async beat(): Promise<void> {
    await this.o.redis.set(`${this.o.prefix}:hb:${this.o.workerId}`, String(Date.now()), 'PX', this.ttlMs);
    if (this.draining) await this.o.redis.pexpire(`${this.o.prefix}:drain:${this.o.workerId}`, this.ttlMs);
  }

  private async tick(): Promise<void> {
    try {
      await this.beat();
      await this.sweep();
    } catch (err) {
      this.o.logger.warn({ err }, 'worker heartbeat failed');
    }
  }

  /** Looks for workers whose heartbeat expired and hands their jobs over. */
  async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      for (const id of await this.o.redis.smembers(`${this.o.prefix}:workers`)) {
        if (id === this.o.workerId) continue;
        const claim = (this.o.redis as unknown as { tlClaimWorker: (...a: string[]) => Promise<number> }).tlClaimWorker;
        if (Number(await claim.call(this.o.redis, this.o.prefix, id)) !== 1) continue;
        this.o.logger.warn({ deadWorker: id }, 'a worker stopped answering; moving its threads to the shared queue');
        try {
          await this.o.onDeadWorker(id);
        } catch (err) {
          this.o.logger.error({ err, deadWorker: id }, 'could not move a dead worker’s jobs; will retry');
          await this.o.redis.sadd(`${this.o.prefix}:workers`, id);
        }
      }
    } finally {
      this.sweeping = false;
    }
  }
}
