import type { Logger } from '../src/logger.js';
import type { SandboxLimits } from './container-spec.js';
import type { LiveContainer } from './live-container.js';
import { formatMib } from './session-files.js';
import type { Session, SessionRegistry } from './session-registry.js';
import { restoreState, saveState, type RestoreOutcome, type SaveOutcome, type StateLimits } from './session-state.js';

/** How long {@link StateKeeper.saveAll} waits for the variables of live sessions to be saved (SIGTERM, daemon stop). */
const SAVE_ALL_MS = 30_000;

export interface StateKeeperOptions {
  registry: SessionRegistry;
  limits: Pick<SandboxLimits, 'stateMaxBytes' | 'stateSaveDelayMs' | 'timeoutMs' | 'graceMs'>;
  logger: Logger;
}

/**
 * When a thread's Python variables are saved and restored (durable threads): after a run, once the session has been
 * quiet for THREADLAB_STATE_SAVE_DELAY_MS; before its container goes; for every live session on close; and into each
 * new container. Every save runs inside the session's serialisation; what went wrong is told in the next result
 * (`session.stateNotSaved`), never thrown, because a container that is going away must go.
 */
export class StateKeeper {
  private closed = false;

  constructor(private readonly options: StateKeeperOptions) {}

  private get limits(): StateLimits {
    const { limits } = this.options;
    return { maxBytes: limits.stateMaxBytes, timeoutMs: limits.timeoutMs, graceMs: limits.graceMs };
  }

  /** A Python run ended: the variables are saved once the session is quiet, off the reply's path. */
  changed(session: Session): void {
    session.stateDirty = true;
    this.schedule(session);
  }

  private schedule(session: Session): void {
    if (this.options.limits.stateMaxBytes === 0 || this.closed) return;
    clearTimeout(session.stateTimer);
    session.stateTimer = setTimeout(() => {
      session.stateTimer = undefined;
      if (session.busy > 0) return this.schedule(session); // the request in flight goes first
      this.options.registry
        .serialize(session, () => this.saveNow(session), { touch: false })
        .catch((err: unknown) => {
          this.options.logger.warn({ err, session: session.hash }, 'could not save the variables of a session');
        });
    }, this.options.limits.stateSaveDelayMs);
    session.stateTimer.unref();
  }

  /** Loads the saved variables into a new container; undefined when nothing was saved or saving is off. */
  restore(session: Session, live: LiveContainer): Promise<RestoreOutcome | undefined> {
    if (this.options.limits.stateMaxBytes === 0) return Promise.resolve(undefined);
    return restoreState(live.connection, session.state, this.limits);
  }

  /**
   * Saves the session's variables if a Python run changed them since the last save; undefined when there was
   * nothing to save (no live container, no Python run since, or saving off). Call inside the session's
   * serialisation.
   */
  async saveNow(session: Session): Promise<SaveOutcome | undefined> {
    clearTimeout(session.stateTimer);
    session.stateTimer = undefined;
    const live = session.live;
    const { limits, logger } = this.options;
    if (!session.stateDirty || !live?.isAlive || limits.stateMaxBytes === 0) return undefined;
    session.stateDirty = false;
    const lost = 'if the sandbox is recycled they are lost (files are kept)';
    try {
      const outcome = await session.state.whileSaving(() => saveState(live.connection, session.state, this.limits));
      if (outcome.kind !== 'unchanged') {
        session.stateIncomplete = outcome.kind !== 'saved' || outcome.notSaved.length > 0;
      }
      if (outcome.kind === 'saved') {
        logger.debug({ session: session.hash, bytes: outcome.bytes, variables: outcome.variables }, 'variables saved');
        session.stateNotSaved = undefined;
      } else if (outcome.kind === 'tooLarge') {
        logger.info({ session: session.hash, bytes: outcome.bytes }, 'variables too large to save');
        session.stateNotSaved = `they take more than ${formatMib(limits.stateMaxBytes)} saved (THREADLAB_STATE_MAX_MB), so they were not saved: ${lost}`;
      } else if (outcome.kind === 'failed') {
        logger.info({ session: session.hash, reason: outcome.reason }, 'variables could not be saved');
        session.stateNotSaved = `they could not be saved (${outcome.reason}): ${lost}`;
      }
      return outcome;
    } catch (err) {
      logger.warn({ err, session: session.hash }, 'could not save the variables of a session');
      session.stateIncomplete = true;
      session.stateNotSaved = `they could not be saved (${(err as Error).message}): ${lost}`;
      return { kind: 'failed', reason: (err as Error).message };
    }
  }

  /** Saves every live session's variables before their containers go, within a bound: a shutdown must end. */
  async saveAll(): Promise<void> {
    this.closed = true;
    const { registry } = this.options;
    const saves = registry
      .all()
      .map((session) => registry.serialize(session, () => this.saveNow(session), { touch: false }));
    const bound = new Promise<void>((resolve) => setTimeout(resolve, SAVE_ALL_MS).unref());
    await Promise.race([Promise.allSettled(saves), bound]);
  }
}
