import { decide, limitsFor, RATE_WINDOW_MS, type LimitRefusal, type LimitSubject, type QueueLimits } from './limits.js';

interface Window {
  count: number;
  endsAtMs: number;
}

/**
 * In-process admission counters for {@link InProcessJobQueue}. A window opens with the first job
 * of a subject and lasts one minute, the same rule the Redis script applies.
 */
export class MemoryLimiter {
  private readonly inFlight = new Map<string, number>();
  private readonly windows = new Map<string, Window>();
  private total = 0;

  constructor(
    private readonly limits: QueueLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Charges the subject and returns undefined, or returns the refusal and charges nothing. */
  tryAdmit(subject: LimitSubject): LimitRefusal | undefined {
    const nowMs = this.now();
    const user = this.window(`u:${subject.user}`, nowMs);
    const workspace = this.window(`w:${subject.workspace}`, nowMs);
    const refused = decide(
      {
        queueLength: this.total,
        userInFlight: this.inFlight.get(`u:${subject.user}`) ?? 0,
        workspaceInFlight: this.inFlight.get(`w:${subject.workspace}`) ?? 0,
        userInWindow: user.count,
        userWindowLeftMs: user.endsAtMs - nowMs,
        workspaceInWindow: workspace.count,
        workspaceWindowLeftMs: workspace.endsAtMs - nowMs,
      },
      limitsFor(subject, this.limits),
    );
    if (refused) return refused;
    user.count += 1;
    workspace.count += 1;
    this.total += 1;
    this.bump(`u:${subject.user}`, 1);
    this.bump(`w:${subject.workspace}`, 1);
    return undefined;
  }

  /** Frees the concurrency slots of a job that finished, failed or was dropped. */
  release(subject: LimitSubject): void {
    this.total = Math.max(0, this.total - 1);
    this.bump(`u:${subject.user}`, -1);
    this.bump(`w:${subject.workspace}`, -1);
  }

  /** Jobs admitted and not yet released. */
  get length(): number {
    return this.total;
  }

  private window(key: string, nowMs: number): Window {
    let w = this.windows.get(key);
    if (!w || w.endsAtMs <= nowMs) {
      w = { count: 0, endsAtMs: nowMs + RATE_WINDOW_MS };
      this.windows.set(key, w);
      if (this.windows.size > 10_000) this.sweep(nowMs);
    }
    return w;
  }

  private sweep(nowMs: number): void {
    for (const [k, w] of this.windows) if (w.endsAtMs <= nowMs) this.windows.delete(k);
  }

  private bump(key: string, by: number): void {
    const next = (this.inFlight.get(key) ?? 0) + by;
    if (next <= 0) this.inFlight.delete(key);
    else this.inFlight.set(key, next);
  }
}
