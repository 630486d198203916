import type { ExecutionResult } from '../src/domain/execution.js';
import type { Logger } from '../src/logger.js';
import type { LiveContainer } from './live-container.js';
import type { Session } from './session-registry.js';

/** A container whose host tasks passed this share of its host pids limit is renewed. */
export const RENEW_AT_SHARE = 0.5;

/**
 * A run that left this share of the sandbox's pids limit running (a fork bomb, processes started in a loop) is
 * renewed without a read. One bomb's run was measured to take a container from 616 to 1,321 of its 1,408 host
 * tasks, and a CI run saw the run after a bomb find its Sentry dead: after such a run the thread's next one should
 * not depend on one read of a count that only grows.
 */
export const RENEW_AFTER_STOPPED_SHARE = 0.25;

export interface HostTaskWatchOptions {
  /** Whether containers run under gVisor (decided at start); under runc the host limit is the code's own. */
  underGvisor: () => boolean;
  /** The containers' host pids limit (container-spec's hostPidsLimit). */
  limit: number;
  /** The sandbox's own pids limit (THREADLAB_SANDBOX_PIDS). */
  pids: number;
  /** Runs work in the session's turn (after the run that asked, before the session's next request). */
  serialize: (session: Session, work: () => Promise<void>) => Promise<void>;
  /** Retires the session's container, its variables saved and its files kept. */
  retire: (session: Session, reason: string) => Promise<void>;
  /** Counts a renewal (the metric). */
  onRenewed?: () => void;
  logger: Logger;
}

/**
 * Keeps gVisor from panicking on host tasks the code's churn left behind. Under the ptrace platform a sandbox's host
 * tasks only grow (container-spec.ts, RUNSC_HOST_PIDS): a run that had processes stopped, timed out or lost its
 * kernel may have left the container's stubs near the host limit, where the Sentry panics on the next thread it needs
 * (the next run would find its container dead). After such a run, in the session's turn, a container the run left
 * many processes in (RENEW_AFTER_STOPPED_SHARE), whose host tasks passed RENEW_AT_SHARE of the limit, or whose count
 * the engine did not give, is retired: its variables saved, its files kept, and the next run starts in a fresh
 * container with them back.
 */
export class HostTaskWatch {
  constructor(private readonly options: HostTaskWatchOptions) {}

  /** Called with a run's result; the check, when one is due, runs after the run's turn. */
  afterRun(session: Session, live: LiveContainer, result: ExecutionResult): void {
    if (!this.options.underGvisor() || !churned(result)) return;
    void this.options
      .serialize(session, () => this.check(session, live, result.stoppedProcesses ?? 0))
      .catch((err: unknown) => this.options.logger.warn({ err, thread: session.hash }, 'host task check failed'));
  }

  private async check(session: Session, live: LiveContainer, stopped: number): Promise<void> {
    if (session.live !== live || !live.isAlive) return;
    const { limit, logger } = this.options;
    const reason = await this.renewal(live, stopped);
    if (!reason || session.live !== live) return;
    logger.info({ thread: session.hash, container: live.name, limit, stopped }, `sandbox renewed: ${reason}`);
    await this.options.retire(session, `the sandbox was renewed: ${reason}`);
    this.options.onRenewed?.();
  }

  /** Why the container must be renewed, or undefined when it may go on. */
  private async renewal(live: LiveContainer, stopped: number): Promise<string | undefined> {
    const { limit, pids, logger } = this.options;
    if (stopped >= pids * RENEW_AFTER_STOPPED_SHARE)
      return `the code left ${stopped} processes running, and under gVisor their host tasks stay behind`;
    const started = Date.now();
    const tasks = await live.hostTasks();
    logger.debug({ container: live.name, tasks, limit, readMs: Date.now() - started }, 'gVisor host tasks read');
    // Unread (the engine did not answer in time): renewed all the same, since a container left near its limit would
    // fail the thread's next, innocent run.
    if (tasks === undefined)
      return `the processes the code started may have left gVisor near its ${limit} host tasks (the engine did not say how many)`;
    if (tasks >= limit * RENEW_AT_SHARE)
      return `the processes the code started left gVisor holding ${tasks} of its ${limit} host tasks`;
    return undefined;
  }
}

/** Whether a run churned processes: some were stopped after it, it was interrupted, or its kernel was killed. */
export function churned(result: ExecutionResult): boolean {
  return (result.stoppedProcesses ?? 0) > 0 || result.status === 'timeout' || result.status === 'killed';
}
