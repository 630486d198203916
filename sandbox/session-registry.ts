import { join } from 'node:path';
import { FileMirror } from './file-mirror.js';
import type { StateRestore } from '../src/domain/execution.js';
import { threadHash } from '../src/domain/thread-key.js';
import type { LiveContainer } from './live-container.js';
import { StateStore } from './session-state.js';

/** One thread's sandbox: its container while live, its files always. */
export interface Session {
  readonly key: string;
  readonly hash: string;
  readonly mirror: FileMirror;
  live: LiveContainer | undefined;
  lastUsedMs: number;
  /** Operations queued or running; a busy session is never evicted or reaped. */
  busy: number;
  /** Containers this session has had since the bot started. */
  generation: number;
  /** Why the variables were lost since the last run, told in the next result. */
  pendingReset: string | undefined;
  /** The saved variables (durable threads), in the session's host copy. */
  readonly state: StateStore;
  /** A Python run ended since the variables were last saved. */
  stateDirty: boolean;
  /** The pending save after the last run. */
  stateTimer: NodeJS.Timeout | undefined;
  /** Why the variables could not be saved, told in the next result. */
  stateNotSaved: string | undefined;
  /** What was loaded into a new container, told in the next result. */
  stateRestored: StateRestore | undefined;
  /** The last save of the variables failed, was too large or left some out: they would be lost with the container. */
  stateIncomplete: boolean;
  /** The live container holds an R or JavaScript session, whose variables are never saved. */
  holdsUnsavedSession: boolean;
  /**
   * Why the Python kernel was replaced by a lean one while the session was idle (lean-kernels.ts): its saved
   * variables go back into it before the kernel's next use, and the result says this. Undefined otherwise.
   */
  leanReason: string | undefined;
  queue: Promise<unknown>;
}

export interface SessionRegistryOptions {
  /** Host directory holding one file mirror per session. */
  dataDir: string;
  /** Idle time of a session whose container holds nothing unsaved (`isSaved`). */
  idleTtlMs: number;
  /** Idle time of a session whose container holds what would be lost. @defaultValue `idleTtlMs` */
  unsavedIdleTtlMs?: number;
  /** Whether the session's container could go without losing anything. @defaultValue always true */
  isSaved?: (session: Session) => boolean;
  maxAgeMs: number;
  /** Called by the reaper for a live, idle session past its idle TTL or maximum age. */
  onExpire: (session: Session, reason: string) => void;
  /**
   * Idle time after which a live session whose container holds nothing unsaved (`isSaved`) gets a lean kernel
   * (THREADLAB_SANDBOX_KERNEL_IDLE_MS); 0 or unset: never.
   */
  kernelIdleMs?: number;
  /** Called by the reaper for a live, idle, saved session past `kernelIdleMs` whose kernel is not lean yet. */
  onKernelIdle?: (session: Session, idleMs: number) => void;
  /** How often the reaper looks. @defaultValue a quarter of the shorter limit, between 1 s and 60 s */
  sweepMs?: number;
}

/** Sessions by key, with per-session serialisation, LRU choice and an idle/max-age reaper. */
export class SessionRegistry {
  private readonly sessions = new Map<string, Session>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: SessionRegistryOptions) {}

  get(key: string): Session {
    let session = this.sessions.get(key);
    if (!session) {
      // The container label and mirror directory name: the key itself never leaves the bot.
      const hash = threadHash(key);
      const root = join(this.options.dataDir, hash);
      session = {
        key,
        hash,
        mirror: new FileMirror(root),
        live: undefined,
        lastUsedMs: Date.now(),
        busy: 0,
        generation: 0,
        pendingReset: undefined,
        state: new StateStore(root),
        stateDirty: false,
        stateTimer: undefined,
        stateNotSaved: undefined,
        stateRestored: undefined,
        stateIncomplete: false,
        holdsUnsavedSession: false,
        leanReason: undefined,
        queue: Promise.resolve(),
      };
      this.sessions.set(key, session);
    }
    return session;
  }

  peek(key: string): Session | undefined {
    return this.sessions.get(key);
  }

  delete(key: string): void {
    clearTimeout(this.sessions.get(key)?.stateTimer);
    this.sessions.delete(key);
  }

  all(): Session[] {
    return [...this.sessions.values()];
  }

  /** Sessions holding a container. */
  liveCount(): number {
    return this.all().filter((s) => s.live).length;
  }

  /** The least recently used live session that is not busy, other than `except`. */
  leastRecentlyUsed(except: Session): Session | undefined {
    return this.all()
      .filter((s) => s !== except && s.live && s.busy === 0)
      .sort((a, b) => a.lastUsedMs - b.lastUsedMs)[0];
  }

  /**
   * Runs `fn` after every earlier operation of the session: one request in flight per container. The session
   * counts as used when it ends, unless `touch` is false (the bot's own work, such as a deferred save, must not
   * keep a session from its idle TTL or make it look recent to the LRU choice).
   */
  serialize<T>(session: Session, fn: () => Promise<T>, options: { touch?: boolean } = {}): Promise<T> {
    session.busy += 1;
    const result = session.queue.then(fn, fn).finally(() => {
      session.busy -= 1;
      if (options.touch !== false) session.lastUsedMs = Date.now();
    });
    session.queue = result.catch(() => undefined);
    return result;
  }

  startReaper(): void {
    if (this.timer) return;
    const kernelIdleMs = this.options.kernelIdleMs || Infinity;
    const shorter = Math.min(this.options.idleTtlMs, this.unsavedIdleTtlMs, this.options.maxAgeMs, kernelIdleMs);
    const sweepMs = this.options.sweepMs ?? Math.min(60_000, Math.max(1000, Math.floor(shorter / 4)));
    this.timer = setInterval(() => this.sweep(), sweepMs);
    this.timer.unref();
  }

  stopReaper(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private get unsavedIdleTtlMs(): number {
    return this.options.unsavedIdleTtlMs ?? this.options.idleTtlMs;
  }

  /** The idle time after which the session's container goes: short once its variables are saved. */
  idleTtlOf(session: Session): number {
    return this.isSaved(session) ? this.options.idleTtlMs : Math.max(this.options.idleTtlMs, this.unsavedIdleTtlMs);
  }

  /** Whether the session's container could go (or its kernel be replaced) without losing anything. */
  isSaved(session: Session): boolean {
    return this.options.isSaved?.(session) ?? true;
  }

  /** Expires idle and old sessions, and makes idle saved kernels lean, now; the reaper calls this on its timer. */
  sweep(now = Date.now()): void {
    const kernelIdleMs = this.options.kernelIdleMs ?? 0;
    for (const session of this.all()) {
      if (!session.live || session.busy > 0) continue;
      const idleMs = now - session.lastUsedMs;
      if (idleMs >= this.idleTtlOf(session)) {
        this.options.onExpire(session, `the session was idle for ${formatMs(idleMs)}`);
      } else if (now - session.live.startedMs >= this.options.maxAgeMs) {
        this.options.onExpire(session, `the session reached its maximum age of ${formatMs(this.options.maxAgeMs)}`);
      } else if (
        kernelIdleMs > 0 &&
        idleMs >= kernelIdleMs &&
        session.leanReason === undefined &&
        this.isSaved(session)
      ) {
        this.options.onKernelIdle?.(session, idleMs);
      }
    }
  }
}

export function formatMs(ms: number): string {
  if (ms >= 3_600_000) return `${Math.round(ms / 360_000) / 10} h`;
  if (ms >= 60_000) return `${Math.round(ms / 6000) / 10} min`;
  return `${Math.round(ms / 100) / 10} s`;
}
