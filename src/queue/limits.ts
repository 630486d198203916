import type { InboundMessage } from '../domain/messages.js';
import type { JobOrigin } from '../domain/schedule.js';

/** Admission limits shared by every JobQueue implementation. */
export interface QueueLimits {
  /** Jobs of one user queued or running at once. @defaultValue 2 (THREADLAB_USER_MAX_CONCURRENT) */
  userMaxConcurrent: number;
  /** Jobs one user may submit per rolling minute window. @defaultValue 20 (THREADLAB_USER_MAX_PER_MINUTE) */
  userMaxPerMinute: number;
  /** Jobs of one workspace queued or running at once. @defaultValue 16 */
  workspaceMaxConcurrent: number;
  /** Jobs one workspace may submit per minute window. @defaultValue 200 */
  workspaceMaxPerMinute: number;
  /** Jobs queued or running in the whole queue. @defaultValue 1000 (THREADLAB_QUEUE_MAX_LENGTH) */
  maxQueueLength: number;
  /** Retry hint when a concurrency or length cap is hit (no exact time is known). @defaultValue 15000 */
  busyRetryAfterMs: number;
  /**
   * Schedule firings one workspace may queue per minute window, all its schedules together: firings are not their
   * creator's requests and never count against the per-user limits. @defaultValue 30
   * (THREADLAB_SCHEDULE_MAX_FIRINGS_PER_MINUTE)
   */
  scheduleFiringsPerMinute?: number;
}

export const DEFAULT_LIMITS: QueueLimits = {
  userMaxConcurrent: 2,
  userMaxPerMinute: 20,
  workspaceMaxConcurrent: 16,
  workspaceMaxPerMinute: 200,
  maxQueueLength: 1000,
  busyRetryAfterMs: 15_000,
  scheduleFiringsPerMinute: 30,
};

/** The length of the per-minute windows. */
export const RATE_WINDOW_MS = 60_000;

/** The limits from the configuration's queue section (THREADLAB_USER_*, THREADLAB_WORKSPACE_*, THREADLAB_QUEUE_MAX_LENGTH). */
export function queueLimits(settings: Omit<QueueLimits, 'busyRetryAfterMs'>): QueueLimits {
  return {
    ...DEFAULT_LIMITS,
    userMaxConcurrent: settings.userMaxConcurrent,
    userMaxPerMinute: settings.userMaxPerMinute,
    workspaceMaxConcurrent: settings.workspaceMaxConcurrent,
    workspaceMaxPerMinute: settings.workspaceMaxPerMinute,
    maxQueueLength: settings.maxQueueLength,
    ...(settings.scheduleFiringsPerMinute !== undefined
      ? { scheduleFiringsPerMinute: settings.scheduleFiringsPerMinute }
      : {}),
  };
}

/** Which counters a job is charged to: user ids are scoped by platform and workspace. */
export interface LimitSubject {
  user: string;
  workspace: string;
  /** The job is a schedule's firing: `user` is the workspace's schedules, bounded by `scheduleFiringsPerMinute`. */
  firing?: boolean;
}

/**
 * The counters of a job of `message`: its user's and its workspace's; a schedule's firing (`origin`) is charged
 * to its workspace's schedules instead of its creator, so short intervals never use up the creator's own requests.
 */
export function limitSubject(message: InboundMessage, origin?: JobOrigin): LimitSubject {
  const ws = `${message.thread.platform}:${message.thread.workspace}`;
  // `#` is in no platform's user ids, so the schedules' counter is nobody's own.
  if (origin?.kind === 'schedule') return { user: `${ws}#schedules`, workspace: ws, firing: true };
  return { user: `${ws}:${message.user.id}`, workspace: ws };
}

/**
 * The limits a subject is held to: a person's, or for firings the per-workspace bound on firings per minute in
 * place of the per-user rate, with no per-user concurrency beyond the workspace's.
 */
export function limitsFor(subject: LimitSubject, limits: QueueLimits): QueueLimits {
  if (!subject.firing) return limits;
  return {
    ...limits,
    userMaxPerMinute: limits.scheduleFiringsPerMinute ?? DEFAULT_LIMITS.scheduleFiringsPerMinute!,
    userMaxConcurrent: limits.workspaceMaxConcurrent,
  };
}

/** Why a job was refused, which limit said so, and the retry hint. */
export type LimitKind = 'user_concurrent' | 'user_rate' | 'workspace_concurrent' | 'workspace_rate' | 'queue_length';

export interface LimitRefusal {
  accepted: false;
  reason: 'rate_limited' | 'queue_full';
  retryAfterMs: number;
  message: string;
  limit: LimitKind;
}

function humanDuration(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  if (seconds < 90) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** Builds the refusal with a polite message that says when to try again. */
export function refusal(limit: LimitKind, retryAfterMs: number, limits: QueueLimits): LimitRefusal {
  const when = `Please try again in about ${humanDuration(retryAfterMs)}.`;
  const text: Record<LimitKind, string> = {
    user_concurrent: `You already have ${limits.userMaxConcurrent} request${limits.userMaxConcurrent === 1 ? '' : 's'} in progress, which is the most I run at once for one person. ${when}`,
    user_rate: `You have sent ${limits.userMaxPerMinute} requests in the last minute, which is my limit per person. ${when}`,
    workspace_concurrent: `This workspace already has ${limits.workspaceMaxConcurrent} requests in progress, the most I run at once for it. ${when}`,
    workspace_rate: `This workspace has sent ${limits.workspaceMaxPerMinute} requests in the last minute, which is its limit. ${when}`,
    queue_length: `I am very busy right now (${limits.maxQueueLength} requests waiting), so I could not take this one. ${when}`,
  };
  return {
    accepted: false,
    reason: limit === 'queue_length' ? 'queue_full' : 'rate_limited',
    retryAfterMs: Math.max(1000, Math.ceil(retryAfterMs)),
    message: `Sorry, I can't start this now. ${text[limit]}`,
    limit,
  };
}

/** Counters as seen at admission time; both implementations fill this in and share {@link decide}. */
export interface LimitCounts {
  userInFlight: number;
  workspaceInFlight: number;
  queueLength: number;
  /** Submissions in the current window and the ms until that window ends. */
  userInWindow: number;
  userWindowLeftMs: number;
  workspaceInWindow: number;
  workspaceWindowLeftMs: number;
}

/** The one admission rule: the first limit a new job would exceed, or undefined to admit it. */
export function decide(counts: LimitCounts, limits: QueueLimits): LimitRefusal | undefined {
  if (counts.queueLength >= limits.maxQueueLength) return refusal('queue_length', limits.busyRetryAfterMs, limits);
  if (counts.userInWindow >= limits.userMaxPerMinute) return refusal('user_rate', counts.userWindowLeftMs, limits);
  if (counts.workspaceInWindow >= limits.workspaceMaxPerMinute)
    return refusal('workspace_rate', counts.workspaceWindowLeftMs, limits);
  if (counts.userInFlight >= limits.userMaxConcurrent)
    return refusal('user_concurrent', limits.busyRetryAfterMs, limits);
  if (counts.workspaceInFlight >= limits.workspaceMaxConcurrent)
    return refusal('workspace_concurrent', limits.busyRetryAfterMs, limits);
  return undefined;
}
