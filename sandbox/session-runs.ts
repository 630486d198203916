import { AsyncResource } from 'node:async_hooks';
import type { Duplex } from 'node:stream';
import type { ExecutionResult } from '../src/domain/execution.js';
import type { Logger } from '../src/logger.js';
import type { EgressPort, EgressRunBudget } from '../src/ports/egress.js';
import type { RunRequest } from '../src/ports/sandbox.js';
import type { SandboxLimits } from './container-spec.js';
import { loadDataStack } from './data-stack.js';
import type { LeanKernels } from './lean-kernels.js';
import type { LiveContainer } from './live-container.js';
import { executeRun } from './run-execution.js';
import { syncRunFiles } from './session-files.js';
import type { Session } from './session-registry.js';
import type { StateKeeper } from './state-keeper.js';

const MB = 1024 * 1024;

export interface SessionRunsOptions {
  limits: SandboxLimits;
  state: StateKeeper;
  lean: LeanKernels;
  /** The egress gateway, when THREADLAB_EGRESS_ALLOW allows destinations. */
  egress?: EgressPort;
  /** Whether containers run under gVisor (decided at start): a crash reads differently there. */
  underGvisor: () => boolean;
  logger: Logger;
}

/**
 * What a request does in a session's live container, inside the session's serialisation: a run with its saved
 * variables back in a lean kernel, its network budget, its files brought back, its notices (variables reset,
 * restored, not saved) told once and its variables saved later; and the prepare that gets a kernel ready for the
 * code to come.
 */
export class SessionRuns {
  constructor(private readonly options: SessionRunsOptions) {}

  async run(session: Session, live: LiveContainer, request: RunRequest): Promise<ExecutionResult> {
    // R and JavaScript have sessions of their own: the Python variables wait for the kernel's next use.
    if (request.language !== 'r' && request.language !== 'javascript') await this.options.lean.restore(session, live);
    // The bot's own runs leave the notices for the user's next run.
    const pendingReset = request.internal ? undefined : session.pendingReset;
    if (!request.internal) session.pendingReset = undefined;
    const { limits } = this.options;
    const timeoutMs = request.timeoutMs ?? limits.timeoutMs;
    const budget = this.openEgress(session, live, timeoutMs + limits.graceMs);
    const outcome = await executeRun({
      live,
      request,
      timeoutMs,
      graceMs: limits.graceMs,
      outputBytes: limits.outputBytes,
      maxFileBytes: limits.maxFileBytes,
      maxRunFilesBytes: limits.maxRunFilesBytes,
      underGvisor: this.options.underGvisor(),
    }).finally(() => {
      live.egress?.deactivate();
      budget?.close();
    });
    if (outcome.lost) {
      if (session.live === live) session.live = undefined;
      session.pendingReset = undefined;
      await live.remove();
    } else {
      await syncRunFiles({
        connection: live.connection,
        mirror: session.mirror,
        outcome,
        maxFileBytes: limits.maxFileBytes,
        maxRunFilesBytes: limits.maxRunFilesBytes,
        maxMirrorBytes: limits.dataMb * MB,
        logger: this.options.logger,
      });
    }
    if (pendingReset && !outcome.result.stateReset) outcome.result.stateReset = { reason: pendingReset };
    if (!request.internal) {
      if (session.stateRestored) outcome.result.stateRestored = session.stateRestored;
      if (session.stateNotSaved) outcome.result.stateNotSaved = { reason: session.stateNotSaved };
      session.stateRestored = undefined;
      session.stateNotSaved = undefined;
    }
    if (!outcome.lost && request.language === 'python') {
      this.options.state.changed(session);
    }
    if (request.language === 'r' || request.language === 'javascript') {
      if (session.live === live) session.holdsUnsavedSession = true;
    }
    return outcome.result;
  }

  /** Gets the kernel ready for the code the model is writing: its variables back, the data stack loaded. */
  async prepare(session: Session, live: LiveContainer): Promise<void> {
    const { limits, logger } = this.options;
    // A lean kernel gets its variables back while the model writes the code (which loads most of the stack).
    await this.options.lean.restore(session, live);
    const outcome = await loadDataStack(live.connection, limits.graceMs);
    if ('failed' in outcome) logger.info({ thread: session.hash, failed: outcome.failed }, 'data stack not loaded');
    else logger.debug({ thread: session.hash, ...outcome }, 'data stack loaded');
  }

  /** Lets the run's connections out through the egress gateway, when there is one; undefined otherwise. */
  private openEgress(session: Session, live: LiveContainer, budgetMs: number): EgressRunBudget | undefined {
    const { egress } = this.options;
    if (!egress || !live.egress) return undefined;
    // The run's connections share one budget and end with it (a kept-alive socket does not outlive the run).
    const budget = egress.newBudget(budgetMs);
    const context = { thread: session.hash };
    // Handled in the run's async context, not the link's: what the caller knows about the run (the
    // audit scope naming who asked) follows its connections.
    live.egress.activate(AsyncResource.bind((socket: Duplex) => void egress.handle(socket, context, budget)));
    return budget;
  }
}
