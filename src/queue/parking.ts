import type { Logger } from '../logger.js';
import type { Semaphore } from './semaphore.js';

/**
 * How many jobs of one worker may be parked at once: waiting on a person (an approval) with their slot let go.
 * Past it a job that would park keeps its slot while it waits, as if parking were off.
 */
export class ParkingLot {
  private parked = 0;

  /**
   * @param max Jobs parked at once (THREADLAB_MAX_PARKED); 0 turns parking off.
   * @param onChange Told the number parked after each change (BullMQ fetches one job more per parked run).
   */
  constructor(
    readonly max: number,
    private readonly onChange: (parked: number) => void = () => undefined,
  ) {}

  /** Jobs parked now. */
  get size(): number {
    return this.parked;
  }

  /** Takes a place when one is free. */
  enter(): boolean {
    if (this.parked >= this.max) return false;
    this.parked += 1;
    this.onChange(this.parked);
    return true;
  }

  leave(): void {
    this.parked -= 1;
    this.onChange(this.parked);
  }
}

/** What a {@link JobSlot} is made of: the worker's slots, its parking lot, and the job's stop. */
export interface JobSlotOptions {
  slots: Semaphore;
  lot: ParkingLot;
  /** The job's signal: a stopped job comes back from parking without waiting for a slot. */
  signal: AbortSignal;
  logger: Logger;
  /** Called when a slot was let go (the in-process queue starts the next job then). @defaultValue nothing */
  onRelease?: () => void;
}

/**
 * One running job's hold on a worker slot, taken before the job starts. While the job waits on a person it
 * may park: the slot goes to another thread, and comes back (ahead of new jobs) when the wait ends. A job
 * stopped meanwhile only says so and ends, so it does not wait for a slot to do that.
 */
export class JobSlot {
  private held = true;

  constructor(private readonly o: JobSlotOptions) {}

  /**
   * Runs `wait` with the slot let go, then takes a slot back before returning what `wait` gave (or threw). With
   * the parking lot full, the job already parked, or already stopped, `wait` runs with the slot kept.
   */
  readonly park = async <T>(wait: () => Promise<T>): Promise<T> => {
    const { lot, logger } = this.o;
    if (!this.held || this.o.signal.aborted) return wait();
    if (!lot.enter()) {
      logger.info(
        { maxParked: lot.max },
        'parking lot full (THREADLAB_MAX_PARKED): the job keeps its slot while it waits',
      );
      return wait();
    }
    this.release();
    logger.debug({ parked: lot.size }, 'job parked: its slot is free while it waits on a person');
    try {
      return await wait();
    } finally {
      lot.leave();
      this.held = await this.o.slots.acquire({ first: true, signal: this.o.signal });
      logger.debug({ withSlot: this.held }, 'job back from parking');
    }
  };

  /** Lets the slot go when the job ends (if it holds one). */
  end(): void {
    if (this.held) this.release();
  }

  private release(): void {
    this.held = false;
    this.o.slots.release();
    this.o.onRelease?.();
  }
}
