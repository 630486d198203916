import { settlesWithin } from '../queue/settles-within.js';

/**
 * Each thread's live status being taken down after its answer was delivered (at most one per thread). The job
 * ends at delivery, so its person's slot in the queue's limits is free for their next message at once; the
 * thread's next job waits for {@link ClosingStatuses.of} before it shows its own status, so status writes never cross.
 */
export class ClosingStatuses {
  private readonly closing = new Map<string, Promise<void>>();

  /** Tracks `closed` (a close that never rejects) as the thread's status being taken down. */
  add(threadKey: string, closed: Promise<void>): void {
    this.closing.set(threadKey, closed);
    void closed.then(() => {
      if (this.closing.get(threadKey) === closed) this.closing.delete(threadKey);
    });
  }

  /** Resolves once the thread's last status is down (at once when none is being taken down). */
  async of(threadKey: string): Promise<void> {
    await this.closing.get(threadKey);
  }

  /** Resolves once every status is down, or after `timeoutMs`: a platform that does not answer cannot hold shutdown. */
  async settle(timeoutMs: number): Promise<void> {
    await settlesWithin(Promise.all([...this.closing.values()]), timeoutMs);
  }
}
