import type { Logger } from '../src/logger.js';
import type { LiveContainer } from './live-container.js';
import { formatMs, type Session, type SessionRegistry } from './session-registry.js';
import type { StateKeeper } from './state-keeper.js';
import type { PoolObserver } from './warm-pool.js';

/** How long the runner may take to replace a kernel (its own bounds: 10 s for the old to exit, 60 s for the new). */
export const RECYCLE_TIMEOUT_MS = 90_000;

export interface LeanKernelsOptions {
  registry: SessionRegistry;
  state: StateKeeper;
  logger: Logger;
  /** Told of each kernel made lean (metrics). */
  observer?: Pick<PoolObserver, 'leanKernel'>;
  /** The bound on one replacement; past it the container is killed (the next run gets a new one, state restored). */
  recycleTimeoutMs?: number;
}

/**
 * Asks the runner to replace the container's Python kernel by a fresh, lean one (`recycle_kernel`): resolves with
 * the seconds it took, or what the runner said when it could not; throws when no answer came within `timeoutMs`
 * (or the connection failed), and then the runner is not to be trusted further.
 */
export async function replaceKernel(
  live: LiveContainer,
  timeoutMs = RECYCLE_TIMEOUT_MS,
): Promise<{ seconds: number | undefined } | { said: string }> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${formatMs(timeoutMs)}`)), timeoutMs);
  });
  try {
    const frame = await Promise.race([live.connection.request({ op: 'recycle_kernel' }), bound]);
    if (frame.type === 'ok') return { seconds: frame.seconds };
    return { said: frame.type === 'error' ? frame.message : `unexpected answer ${frame.type}` };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Idle threads go lean without losing anything (THREADLAB_SANDBOX_KERNEL_IDLE_MS): once a live session has been
 * idle that long and holds nothing unsaved (its variables saved, no R or JavaScript session), its Python kernel,
 * which may hold the data stack and large variables, is replaced by a fresh one in the same container; the saved
 * variables go back into the kernel before its next use (a run, or the prepare at the start of a model turn), and
 * that run's result says so (`stateRestored`). Both run inside the session's serialisation: a busy session is never
 * touched, and a request that arrives during a replacement waits for it.
 */
export class LeanKernels {
  constructor(private readonly options: LeanKernelsOptions) {}

  /**
   * Replaces the session's kernel by a lean one when nothing would be lost; says whether it did. Call inside the
   * session's serialisation.
   */
  async recycle(session: Session, reason: string): Promise<boolean> {
    const live = session.live;
    const { registry, logger } = this.options;
    // Checked again here: a request queued since the reaper looked may have run Python.
    if (!live?.isAlive || session.leanReason !== undefined || !registry.isSaved(session)) return false;
    // Marked before the kernel goes: whatever the answer, the variables are loaded again before the next run
    // (into a kernel that may still hold them, which changes nothing), never saved over from an empty kernel.
    session.leanReason = `${reason}, so its Python process was replaced by a lean one to free memory (THREADLAB_SANDBOX_KERNEL_IDLE_MS)`;
    try {
      const replaced = await replaceKernel(live, this.options.recycleTimeoutMs);
      if ('said' in replaced) {
        logger.warn(
          { container: live.name, said: replaced.said },
          'the kernel of an idle session could not be replaced',
        );
        return false;
      }
      logger.info({ container: live.name, seconds: replaced.seconds }, 'idle session kernel replaced by a lean one');
      this.options.observer?.leanKernel?.('thread');
      return true;
    } catch (err) {
      // A runner that does not answer is not trusted further: the next request gets a new container.
      logger.warn({ err, container: live.name }, 'the kernel of an idle session could not be replaced');
      await live.kill();
      return false;
    }
  }

  /**
   * Loads the saved variables into a lean kernel before its next use, telling the next result what came back
   * (or, when they could not be loaded, that they were lost). Nothing when the kernel is not lean. Call inside the
   * session's serialisation, after the session has its container.
   */
  async restore(session: Session, live: LiveContainer): Promise<void> {
    const reason = session.leanReason;
    if (reason === undefined) return;
    // Still lean if this throws (the runner did not answer as it should): the next request tries again.
    const outcome = await this.options.state.restore(session, live);
    session.leanReason = undefined;
    if (!outcome) return;
    if (outcome.failed) {
      session.pendingReset ??= `${reason}; the saved variables could not be restored: ${outcome.failed}`;
      return;
    }
    session.stateRestored = {
      savedAt: outcome.savedAt,
      variables: outcome.variables,
      notRestored: outcome.notRestored,
      reason,
    };
  }
}
