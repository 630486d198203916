import { randomUUID } from 'node:crypto';
import type { Platform } from '../../domain/thread-key.js';
import { ThreadlabError } from '../../domain/errors.js';
import type { Logger } from '../../logger.js';
import type { ApprovalBoard } from '../../ports/approval-board.js';
import { MemoryApprovalBoard } from './approval-memory-board.js';
import { approvalRecord } from '../audit/audit-approval.js';
import type { AuditLog } from '../audit/audit-log.js';
import type {
  ApprovalDecision,
  ApprovalLanguage,
  ApprovalPress,
  ApprovalPressOutcome,
  ApprovalPrompt,
  ApprovalSettled,
  ApprovalView,
} from '../../ports/approval.js';

/** Options of {@link ApprovalGate}. */
export interface ApprovalGateOptions {
  /** How long a request waits for a press before the run is skipped, in ms (THREADLAB_APPROVAL_TIMEOUT_MS). */
  timeoutMs: number;
  /** Who may decide any request besides its asker, as `platform:userId` (THREADLAB_APPROVAL_ADMINS). */
  admins: readonly string[];
  /** Most requests waiting at once in this process; past it a request is refused (nothing runs). @defaultValue 1000 */
  maxPending?: number;
  logger: Logger;
  /** Where each request's end (decision, who pressed) is recorded as an `approval` line. @defaultValue none */
  audit?: AuditLog;
  /** Where requests wait for presses: Redis when presses may reach another process. @defaultValue this process */
  board?: ApprovalBoard;
}

/** One request for approval: where it is shown and who asked. */
export interface ApprovalRequest {
  platform: Platform;
  threadKey: string;
  askerId: string;
  language: ApprovalLanguage;
  code: string;
  /** Shows the Run and Skip buttons on the platform; a failure means nothing runs. */
  show: (view: ApprovalView) => Promise<ApprovalPrompt>;
  signal: AbortSignal;
  /**
   * Runs the wait for a press with the turn's worker slot let go (`JobContext.park`), so other threads run
   * meanwhile. @defaultValue the turn keeps its slot
   */
  park?: <T>(wait: () => Promise<T>) => Promise<T>;
}

/** Approval ids are UUIDs: a button value of any other shape is not ours and never reaches the board. */
const APPROVAL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** How long a board (Redis) may take to answer before the request or press is given up, in ms. */
const BOARD_WAIT_MS = 5000;

/** How long a request outlives its time limit on the board, so a slow close still finds it, in ms. */
const BOARD_GRACE_MS = 60_000;

/**
 * Waits for a person to approve code the model wrote. A request shows buttons through its platform and
 * resolves on the first press by the asker or an admin, or skips when the time limit passes. Presses by
 * anyone else, or for requests no longer waiting, are refused with a message for the presser. Requests are
 * recorded on an {@link ApprovalBoard}: in this process by default, in Redis when presses may reach
 * another process (split roles, several processes), so the process that receives the press need not be
 * the one whose turn waits.
 */
export class ApprovalGate {
  private readonly admins: ReadonlySet<string>;
  private readonly maxPending: number;
  private readonly board: ApprovalBoard;
  private waiting = 0;

  constructor(private readonly options: ApprovalGateOptions) {
    this.admins = new Set(options.admins);
    this.maxPending = options.maxPending ?? 1000;
    this.board = options.board ?? new MemoryApprovalBoard();
  }

  /** Requests waiting in this process now. */
  get size(): number {
    return this.waiting;
  }

  /** Shows the code and waits for a decision; rejects only when `signal` aborts (the turn was stopped). */
  async request(request: ApprovalRequest): Promise<ApprovalDecision> {
    const log = this.options.logger.child({ thread: request.threadKey });
    request.signal.throwIfAborted();
    if (this.waiting >= this.maxPending) {
      log.warn({ maxPending: this.maxPending }, 'approval refused: too many requests waiting');
      const refused = {
        kind: 'unavailable',
        reason: `too many approvals are waiting (${this.maxPending}); try again later`,
      } as const;
      this.audit(request, { approvalId: undefined, decision: refused, startedMs: Date.now() });
      return refused;
    }
    const approvalId = randomUUID();
    const startedMs = Date.now();
    let stopped = false;
    let decide: (decision: ApprovalDecision) => void = () => undefined;
    const decided = new Promise<ApprovalDecision>((resolve) => (decide = resolve));
    const { timeoutMs } = this.options;
    let opened = false;
    let prompt: ApprovalPrompt | undefined;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    let outcome: ApprovalSettled | undefined;
    this.waiting += 1;
    try {
      try {
        const entry = { platform: request.platform, askerId: request.askerId };
        await within(this.board.open(approvalId, entry, timeoutMs + BOARD_GRACE_MS, decide), 'record the request');
        opened = true;
      } catch (err) {
        // The record may still land once the store answers: closing it (whenever that is) leaves nothing behind.
        void this.board.close(approvalId).catch(() => undefined);
        log.warn({ err }, 'could not record the approval request; the run is skipped');
        outcome = { kind: 'unavailable', reason: 'the approval could not be recorded (is Redis reachable?)' };
        return outcome;
      }
      const view = { approvalId, language: request.language, code: request.code, askerId: request.askerId, timeoutMs };
      try {
        prompt = await request.show(view);
      } catch (err) {
        log.warn({ err }, 'could not show the approval buttons; the run is skipped');
        outcome = { kind: 'unavailable', reason: 'the Run and Skip buttons could not be shown' };
        return outcome;
      }
      // At the limit the request is closed; a press that won just before still decides it.
      timer = setTimeout(() => void this.expire(approvalId, startedMs).then(decide), timeoutMs);
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => reject(request.signal.reason);
        if (request.signal.aborted) onAbort();
        else request.signal.addEventListener('abort', onAbort, { once: true });
      });
      const wait = () => Promise.race([decided, aborted]);
      outcome = await (request.park ? request.park(wait) : wait());
      log.info({ decision: outcome.kind, waitedMs: Date.now() - startedMs }, 'approval decided');
      return outcome;
    } catch (err) {
      outcome = { kind: 'skip', by: '' };
      stopped = true;
      throw err;
    } finally {
      this.waiting -= 1;
      this.audit(request, { approvalId, decision: stopped ? undefined : outcome, startedMs });
      clearTimeout(timer);
      if (onAbort) request.signal.removeEventListener('abort', onAbort);
      if (opened) {
        await within(this.board.close(approvalId), 'close the request').catch((err: unknown) =>
          log.warn({ err }, 'could not close the approval request; it expires on its own'),
        );
      }
      if (prompt && outcome) {
        await prompt.settle(outcome).catch((err) => log.warn({ err }, 'could not update the approval message'));
      }
    }
  }

  /** The time limit passed: the request is closed, unless a press decided it just before. */
  private async expire(approvalId: string, startedMs: number): Promise<ApprovalDecision> {
    const late = await within(this.board.close(approvalId), 'close the request').catch(() => undefined);
    return late ?? { kind: 'timeout', waitedMs: Date.now() - startedMs };
  }

  /** Writes the request's `approval` line (its end, who decided) to the audit trail. */
  private audit(
    request: ApprovalRequest,
    end: { approvalId: string | undefined; decision: ApprovalDecision | undefined; startedMs: number },
  ): void {
    const { threadKey, askerId, language, code } = request;
    this.options.audit?.write(
      approvalRecord({ threadKey, askerId, language, code, ...end, waitedMs: Date.now() - end.startedMs }),
    );
  }

  /**
   * A button press from `platform`: decides its request when the presser is the asker or an admin. The
   * press may come from another process than the waiting one; the board says who asked and who won.
   */
  async press(platform: Platform, press: ApprovalPress): Promise<ApprovalPressOutcome> {
    const unknown = {
      ok: false,
      reason: 'unknown',
      message: 'This approval is no longer waiting: it was decided, timed out or Threadlab restarted.',
    } as const;
    if (!APPROVAL_ID.test(press.approvalId)) return unknown;
    const log = this.options.logger.child({ approvalId: press.approvalId, by: press.userId });
    try {
      const entry = await within(this.board.find(press.approvalId), 'find the request');
      if (!entry || entry.platform !== platform) return unknown;
      const allowed = press.userId === entry.askerId || this.admins.has(`${platform}:${press.userId}`);
      if (!allowed) {
        log.info('approval press refused');
        return {
          ok: false,
          reason: 'not_allowed',
          message: 'Only the person who asked (or a Threadlab admin) can run or skip this code.',
        };
      }
      const won = await within(
        this.board.decide(press.approvalId, { kind: press.action, by: press.userId }),
        'decide the request',
      );
      return won ? { ok: true, decision: press.action } : unknown;
    } catch (err) {
      log.warn({ err }, 'could not decide an approval');
      return {
        ok: false,
        reason: 'unavailable',
        message: 'Threadlab could not record your choice just now (its store did not answer). Press the button again.',
      };
    }
  }

  /** Releases the board's connections (the bot's stop). */
  async close(): Promise<void> {
    await this.board.shutdown();
  }
}

/** Waits at most {@link BOARD_WAIT_MS} for the board; past it, fails with `redis_unreachable`. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ThreadlabError('redis_unreachable', `The approval store did not answer in time (${what}).`)),
      BOARD_WAIT_MS,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
