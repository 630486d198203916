import { ThreadlabError } from '../src/domain/errors.js';
import type { Logger } from '../src/logger.js';
import type { DeferredRemovals } from './deferred-removals.js';
import { containerName } from './launch-container.js';
import type { LiveContainer } from './live-container.js';
import { restoreFiles } from './session-files.js';
import type { Session, SessionRegistry } from './session-registry.js';
import type { RestoreOutcome } from './session-state.js';
import type { PoolObserver, WarmPool } from './warm-pool.js';

export interface SessionContainersOptions {
  registry: SessionRegistry;
  pool: WarmPool;
  /** Starts a container labelled with this session hash. */
  launch: (session: string) => Promise<LiveContainer>;
  instanceId: string;
  /** Live sessions allowed at once (THREADLAB_SANDBOX_MAX_SESSIONS). */
  maxSessions: number;
  logger: Logger;
  observer?: Pick<PoolObserver, 'hit' | 'miss'>;
  /** Saves the session's variables before its container goes (durable threads). */
  saveState?: (session: Session) => Promise<void>;
  /** Loads saved variables into a new container; says what came back, or undefined when nothing was saved. */
  restoreState?: (session: Session, live: LiveContainer) => Promise<RestoreOutcome | undefined>;
  /** Where evicted sessions' containers wait for removal until evictions stop. @defaultValue none: removed at once */
  removals?: DeferredRemovals;
}

/**
 * Gives sessions their containers: from the warm pool when one is ready, evicting the least recently
 * used idle session at the cap, restoring mirrored files; and takes them away (reaped, evicted, lost)
 * leaving a reason for the next result, or with the session (reset) or the sandbox (close).
 */
export class SessionContainers {
  private readonly starting = new Set<Session>();

  constructor(private readonly options: SessionContainersOptions) {}

  /**
   * Removes the session's container (its files stay mirrored, its variables are saved first); the next run
   * says why the container is new. Called inside the session's serialisation.
   */
  async retire(session: Session, reason: string, { deferRemoval = false } = {}): Promise<void> {
    if (!session.live) return;
    await this.options.saveState?.(session);
    const live = session.live;
    if (!live) return;
    session.live = undefined;
    session.pendingReset = reason;
    this.options.logger.info({ container: live.name, reason }, 'sandbox session retired');
    const { removals } = this.options;
    await (deferRemoval && removals ? removals.remove(live) : live.remove());
  }

  /**
   * Removes the session's container, its variables unsaved, and its files; the registry forgets the session (a
   * reset). Called inside the session's serialisation.
   */
  async discard(session: Session): Promise<void> {
    const live = session.live;
    session.live = undefined;
    await live?.remove();
    await session.mirror.clear();
    this.options.registry.delete(session.key);
  }

  /** Removes every session's container as it is, saving nothing itself (closing: the saves of close come first). */
  async removeAll(): Promise<void> {
    await this.options.removals?.close();
    await Promise.all(
      this.options.registry.all().map(async (session) => {
        const live = session.live;
        session.live = undefined;
        await live?.remove();
      }),
    );
  }

  /** The session's container: its own if alive, else one from the pool or a new one, files restored. */
  async ensureLive(session: Session): Promise<LiveContainer> {
    if (session.live?.isAlive) return session.live;
    if (session.live) {
      void session.live.remove();
      session.live = undefined;
      session.pendingReset ??= 'the sandbox container stopped unexpectedly';
    }
    await this.makeRoom(session);
    // The pool refills once this session has its container and its files and variables back.
    return this.options.pool.quietWhile(() => this.takeAndRestore(session));
  }

  private async takeAndRestore(session: Session): Promise<LiveContainer> {
    this.starting.add(session);
    let live: LiveContainer;
    try {
      const pooled = this.options.pool.take();
      if (pooled) this.options.observer?.hit();
      else this.options.observer?.miss();
      if (pooled) {
        live = pooled;
        void live.container
          .rename({ name: containerName(this.options.instanceId, session.hash) })
          .catch(() => undefined);
      } else {
        live = await this.options.pool.missStart(() => this.options.launch(session.hash));
      }
    } finally {
      this.starting.delete(session);
    }
    session.live = live;
    session.holdsUnsavedSession = false;
    session.leanReason = undefined; // a new kernel gets the saved variables here
    session.generation += 1;
    void live.connection.closed.then(() => {
      if (session.live !== live) return;
      session.live = undefined;
      session.pendingReset ??= 'the sandbox container stopped unexpectedly';
      void live.remove();
    });
    const restored = await restoreFiles(live.connection, session.mirror);
    const state = await this.options.restoreState?.(session, live);
    if (state) {
      const reason =
        session.pendingReset ??
        (session.generation === 1
          ? 'the bot restarted or another worker took the thread over'
          : 'the sandbox was replaced');
      if (state.failed) {
        session.pendingReset = `${reason}; the saved variables could not be restored: ${state.failed}`;
      } else {
        session.stateRestored = {
          savedAt: state.savedAt,
          variables: state.variables,
          notRestored: state.notRestored,
          reason,
        };
        session.pendingReset = undefined;
      }
    } else if (restored > 0 && session.generation === 1) {
      // Files from before this bot process started, and no saved variables.
      session.pendingReset ??= 'the sandbox was restarted; files were restored, variables were not';
    }
    return live;
  }

  /** Evicts least recently used idle sessions while the live count is at THREADLAB_SANDBOX_MAX_SESSIONS. */
  private async makeRoom(session: Session): Promise<void> {
    const max = this.options.maxSessions;
    while (this.options.registry.liveCount() + this.starting.size >= max) {
      const victim = this.options.registry.leastRecentlyUsed(session);
      if (!victim) {
        throw new ThreadlabError(
          'sandbox_busy',
          `All ${max} sandbox sessions are busy; try again shortly or raise THREADLAB_SANDBOX_MAX_SESSIONS.`,
          { isRetryable: true, retryAfterMs: 2000 },
        );
      }
      // Its container goes once evictions stop: removing it now would slow the sessions starting (a burst).
      await this.options.registry.serialize(victim, () =>
        this.retire(
          victim,
          `the session was evicted to make room for another (THREADLAB_SANDBOX_MAX_SESSIONS=${max})`,
          { deferRemoval: true },
        ),
      );
    }
  }
}
