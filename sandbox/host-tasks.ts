import type { ExecutionResult } from '../src/domain/execution.js';
import type { Logger } from '../src/logger.js';
import type { LiveContainer } from './live-container.js';
import type { Session } from './session-registry.js';

/** A container whose host tasks passed this share of its host pids limit is renewed. */
export const RENEW_AT_SHARE = 0.5;

export interface HostTaskWatchOptions {
  /** Whether containers run under gVisor (decided at start); under runc the host limit is the code's own. */
  underGvisor: () => boolean;
  /** The containers' host pids limit (container-spec's hostPidsLimit). */
  limit: number;
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
 * (the next run would find its container dead). After such a run the container's host tasks are read, in the
 * session's turn, and one past RENEW_AT_SHARE of the limit is retired: its variables saved, its files kept, and the
 * next run starts in a fresh container with them back.
 */
export class HostTaskWatch {
  constructor(private readonly options: HostTaskWatchOptions) {}

  /** Called with a run's result; the check, when one is due, runs after the run's turn. */
  afterRun(session: Session, live: LiveContainer, result: ExecutionResult): void {
    if (!this.options.underGvisor() || !churned(result)) return;
    void this.options
      .serialize(session, () => this.check(session, live))
      .catch((err: unknown) => this.options.logger.warn({ err, thread: session.hash }, 'host task check failed'));
  }

  private async check(session: Session, live: LiveContainer): Promise<void> {
    if (session.live !== live || !live.isAlive) return;
    const tasks = await live.hostTasks();
    const { limit, logger } = this.options;
    if (tasks === undefined || tasks < limit * RENEW_AT_SHARE || session.live !== live) return;
    logger.info(
      { thread: session.hash, container: live.name, tasks, limit },
      'sandbox renewed: gVisor host tasks swelled',
    );
    await this.options.retire(
      session,
      `the sandbox was renewed: the processes the code started left gVisor holding ${tasks} of its ${limit} host tasks`,
    );
    this.options.onRenewed?.();
  }
}

/** Whether a run churned processes: some were stopped after it, it was interrupted, or its kernel was killed. */
export function churned(result: ExecutionResult): boolean {
  return (result.stoppedProcesses ?? 0) > 0 || result.status === 'timeout' || result.status === 'killed';
}
