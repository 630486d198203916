import { randomUUID } from 'node:crypto';
import type { Language } from '../domain/execution.js';
import type { Platform } from '../domain/thread-key.js';
import type { Logger } from '../logger.js';
import { approvalRecord } from './audit-approval.js';
import type { AuditLog } from './audit-log.js';
import type {
  ApprovalDecision,
  ApprovalPress,
  ApprovalPressOutcome,
  ApprovalPrompt,
  ApprovalSettled,
  ApprovalView,
} from '../ports/approval.js';

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
}

/** One request for approval: where it is shown and who asked. */
export interface ApprovalRequest {
  platform: Platform;
  threadKey: string;
  askerId: string;
  language: Language;
  code: string;
  /** Shows the Run and Skip buttons on the platform; a failure means nothing runs. */
  show: (view: ApprovalView) => Promise<ApprovalPrompt>;
  signal: AbortSignal;
}

interface Pending {
  platform: Platform;
  askerId: string;
  decide: (decision: ApprovalDecision) => void;
}

/** Longest approval id accepted from a button: ids are UUIDs, anything longer is not ours. */
const MAX_ID_CHARS = 64;

/**
 * Waits for a person to approve code the model wrote. A request shows buttons through its platform and
 * resolves on the first press by the asker or an admin, or skips when the time limit passes. Presses by
 * anyone else, or for requests no longer waiting, are refused with a message for the presser. Requests
 * live in this process: the gateway that receives the press must be the worker that waits (role `all`).
 */
export class ApprovalGate {
  private readonly pending = new Map<string, Pending>();
  private readonly admins: ReadonlySet<string>;
  private readonly maxPending: number;

  constructor(private readonly options: ApprovalGateOptions) {
    this.admins = new Set(options.admins);
    this.maxPending = options.maxPending ?? 1000;
  }

  /** Requests waiting now. */
  get size(): number {
    return this.pending.size;
  }

  /** Shows the code and waits for a decision; rejects only when `signal` aborts (the turn was stopped). */
  async request(request: ApprovalRequest): Promise<ApprovalDecision> {
    const log = this.options.logger.child({ thread: request.threadKey });
    request.signal.throwIfAborted();
    if (this.pending.size >= this.maxPending) {
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
    this.pending.set(approvalId, { platform: request.platform, askerId: request.askerId, decide });
    const { timeoutMs } = this.options;
    let prompt: ApprovalPrompt | undefined;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    let outcome: ApprovalSettled | undefined;
    try {
      const view = { approvalId, language: request.language, code: request.code, askerId: request.askerId, timeoutMs };
      try {
        prompt = await request.show(view);
      } catch (err) {
        log.warn({ err }, 'could not show the approval buttons; the run is skipped');
        outcome = { kind: 'unavailable', reason: 'the Run and Skip buttons could not be shown' };
        return outcome;
      }
      timer = setTimeout(() => decide({ kind: 'timeout', waitedMs: Date.now() - startedMs }), timeoutMs);
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => reject(request.signal.reason);
        if (request.signal.aborted) onAbort();
        else request.signal.addEventListener('abort', onAbort, { once: true });
      });
      outcome = await Promise.race([decided, aborted]);
      log.info({ decision: outcome.kind, waitedMs: Date.now() - startedMs }, 'approval decided');
      return outcome;
    } catch (err) {
      outcome = { kind: 'skip', by: '' };
      stopped = true;
      throw err;
    } finally {
      this.audit(request, { approvalId, decision: stopped ? undefined : outcome, startedMs });
      clearTimeout(timer);
      if (onAbort) request.signal.removeEventListener('abort', onAbort);
      this.pending.delete(approvalId);
      if (prompt && outcome) {
        await prompt.settle(outcome).catch((err) => log.warn({ err }, 'could not update the approval message'));
      }
    }
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

  /** A button press from `platform`: decides its request when the presser is the asker or an admin. */
  press(platform: Platform, press: ApprovalPress): ApprovalPressOutcome {
    const entry = press.approvalId.length <= MAX_ID_CHARS ? this.pending.get(press.approvalId) : undefined;
    if (!entry || entry.platform !== platform) {
      return {
        ok: false,
        reason: 'unknown',
        message: 'This approval is no longer waiting: it was decided, timed out or Threadlab restarted.',
      };
    }
    const allowed = press.userId === entry.askerId || this.admins.has(`${platform}:${press.userId}`);
    if (!allowed) {
      this.options.logger.info({ approvalId: press.approvalId, by: press.userId }, 'approval press refused');
      return {
        ok: false,
        reason: 'not_allowed',
        message: 'Only the person who asked (or a Threadlab admin) can run or skip this code.',
      };
    }
    this.pending.delete(press.approvalId);
    entry.decide({ kind: press.action, by: press.userId });
    return { ok: true, decision: press.action };
  }
}
