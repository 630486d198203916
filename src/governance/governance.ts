import type { Config } from '../config/index.js';
import type { InboundMessage } from '../domain/messages.js';
import type { Platform } from '../domain/thread-key.js';
import type { Logger } from '../logger.js';
import type { ApprovalHook, ApprovalPress, ApprovalPressOutcome } from '../ports/approval.js';
import type { ApprovalBoard } from '../ports/approval-board.js';
import type {
  AnsweredTurn,
  Governance,
  GovernanceSurface,
  GovernedTurn,
  ScheduledRun,
  TurnGovernance,
} from '../ports/governance.js';
import type { Admission, AdmitOptions } from '../ports/platform-adapter.js';
import { AccessGate } from './access/access-gate.js';
import { restricts } from './access/access-policy.js';
import { ApprovalGate } from './approval/approval-gate.js';
import { answerRecord } from './audit/audit-answer.js';
import { scheduleRecord } from './audit/audit-schedule.js';
import type { AuditLog } from './audit/audit-log.js';
import type { DailyBudgets } from './budget/budget.js';

/** What {@link ThreadlabGovernance} is built from: its settings and the stores the composition root (app/) chose. */
export interface ThreadlabGovernanceOptions {
  /** THREADLAB_ACCESS_* and THREADLAB_APPROVAL_*: read here only. */
  config: Pick<Config, 'access' | 'approval'>;
  logger: Logger;
  /** The daily budgets, when any is set (THREADLAB_BUDGET_*); closed with the governance. */
  budgets?: DailyBudgets;
  /**
   * The audit trail, for the approval decisions and each model turn's answer line (runs and model calls are
   * audited by their decorators).
   */
  audit?: AuditLog;
  /**
   * Where approval requests wait for presses (Redis in split roles), made only when approval is asked for;
   * undefined from it: in this process. @defaultValue this process
   */
  approvalBoard?: () => ApprovalBoard | undefined;
  /** Who wrote in which thread, so `threadlab purge --user` finds a user's threads (retention). */
  participants?: { record(key: string, userId: string): Promise<void> };
  /** The platforms' approval buttons and user groups (the adapters, handed over by the composition root, app/); one per platform. */
  surfaces?: readonly GovernanceSurface[];
}

/** The {@link Governance} of the product: access allowlists, approval, budgets, audit and who wrote where. */
export class ThreadlabGovernance implements Governance {
  /** Undefined when no allowlist is set: the check is skipped entirely. */
  private readonly access: AccessGate | undefined;
  private readonly approvals: ApprovalGate;
  /** Approval mode, decided once: with `ask`, each run of the model's code waits for a person's Run. */
  private readonly asks: boolean;
  private readonly admins: ReadonlySet<string>;
  private readonly surfaces = new Map<Platform, GovernanceSurface>();

  constructor(private readonly options: ThreadlabGovernanceOptions) {
    for (const surface of options.surfaces ?? []) this.surfaces.set(surface.platform, surface);
    const { access, approval } = options.config;
    const { help, noticeMemory, ...policy } = access;
    this.access = restricts(policy)
      ? new AccessGate({ policy, help, maxNotices: noticeMemory, logger: options.logger })
      : undefined;
    this.asks = approval.mode === 'ask';
    this.admins = new Set(approval.admins);
    // Approval off: presses still reach the gate (each is told its request is no longer waiting).
    const board = this.asks ? options.approvalBoard?.() : undefined;
    this.approvals = new ApprovalGate({
      timeoutMs: approval.timeoutMs,
      admins: approval.admins,
      logger: options.logger,
      ...(options.audit ? { audit: options.audit } : {}),
      ...(board ? { board } : {}),
    });
  }

  async admit(message: InboundMessage, options: AdmitOptions & { direct: boolean }): Promise<Admission> {
    if (!this.access) return { allowed: true };
    const refusal = await this.access.check(message, options.direct, this.surfaces.get(message.thread.platform));
    if (!refusal) return { allowed: true };
    const tell = this.access.tellsNow(message, refusal, { always: options.slashCommand === true });
    return { allowed: false, message: refusal.text, tell };
  }

  mayStop(platform: Platform, byId: string, starterId: string): boolean {
    return byId === starterId || this.admins.has(`${platform}:${byId}`);
  }

  async forTurn(turn: GovernedTurn): Promise<TurnGovernance> {
    const { budgets } = this.options;
    const { message } = turn;
    const out: TurnGovernance = {};
    if (budgets) {
      const subject = {
        platform: message.thread.platform,
        workspace: message.thread.workspace,
        user: message.user.id,
        ...(turn.usageCommand ? { usageCommand: turn.usageCommand } : {}),
      };
      if (turn.needs.length > 0) await budgets.admit(subject, turn.needs);
      out.budget = budgets.forTurn(subject);
    }
    const approve = this.approvalHook(turn);
    if (approve) out.approve = approve;
    return out;
  }

  usage(message: InboundMessage): Promise<string> {
    const { budgets } = this.options;
    if (!budgets)
      return Promise.resolve('No daily budgets are set on this Threadlab (THREADLAB_BUDGET_*), so nothing is counted.');
    const { platform, workspace } = message.thread;
    return budgets.usageText({ platform, workspace, user: message.user.id });
  }

  onPress(platform: Platform, press: ApprovalPress): Promise<ApprovalPressOutcome> {
    return this.approvals.press(platform, press);
  }

  recordAnswer(turn: AnsweredTurn): void {
    try {
      this.options.audit?.write(answerRecord(turn));
    } catch (err) {
      // AuditLog.write does not throw; building the line must not fail the reply either.
      this.options.logger.warn({ err, thread: turn.threadKey }, 'could not write the answer audit line');
    }
  }

  recordScheduledRun(run: ScheduledRun): void {
    try {
      this.options.audit?.write(scheduleRecord(run));
    } catch (err) {
      this.options.logger.warn({ err, thread: run.threadKey }, 'could not write the schedule audit line');
    }
  }

  async recordWriter(threadKey: string, userId: string): Promise<void> {
    await this.options.participants?.record(threadKey, userId);
  }

  async close(): Promise<void> {
    await this.options.budgets?.close();
    await this.approvals.close();
  }

  /** With approval on, each run of the model's code waits for the asker's Run; a surface without buttons runs nothing. */
  private approvalHook(turn: GovernedTurn): ApprovalHook | undefined {
    if (!this.asks) return undefined;
    const { message, threadKey, park } = turn;
    const surface = this.surfaces.get(message.thread.platform);
    const askApproval = surface?.askApproval?.bind(surface, message);
    return ({ language, code, signal }) => {
      if (!askApproval) {
        const reason = `${message.thread.platform} cannot show the Run and Skip buttons`;
        return Promise.resolve({ kind: 'unavailable', reason });
      }
      const { platform } = message.thread;
      return this.approvals.request({
        platform,
        threadKey,
        askerId: message.user.id,
        language,
        code,
        show: askApproval,
        signal,
        ...(park ? { park } : {}),
      });
    };
  }
}
