import type { AnswerFigures } from '../domain/figures.js';
import type { InboundMessage } from '../domain/messages.js';
import type { Platform } from '../domain/thread-key.js';
import type { ApprovalHook, ApprovalPress, ApprovalPressOutcome, ApprovalPrompt, ApprovalView } from './approval.js';
import type { TurnBudget } from './budget.js';
import type { JobContext } from './job-queue.js';
import type { Admission, AdmitOptions } from './platform-adapter.js';

/**
 * What a chat platform offers governance beside its messaging: the Run and Skip buttons of approval and the user
 * groups the allowlists may name. An adapter implements what its platform has; the composition root (app/) hands the adapters to
 * governance as its surfaces, so the core never passes them through.
 */
export interface GovernanceSurface {
  readonly platform: Platform;
  /**
   * Shows code the model wants to run in the thread of `message`, with Run and Skip buttons whose presses reach
   * `onPress`. Absent: approval cannot be asked on this platform, and the model's code does not run under it.
   */
  askApproval?(message: InboundMessage, view: ApprovalView): Promise<ApprovalPrompt>;
  /**
   * Which of `groupIds` (Slack user groups) the message's user belongs to, as the platform's API says. Absent:
   * platforms that send roles with the message fill `message.user.roles` instead.
   */
  groupsOf?(message: InboundMessage, groupIds: string[]): Promise<string[]>;
}

/** What a turn will spend: model tokens (a question for the model) and code run time. */
export type BudgetNeed = 'tokens' | 'runMs';

/** One turn as governance sees it: whose message, in which thread, what it needs. */
export interface GovernedTurn {
  message: InboundMessage;
  threadKey: string;
  /** The budgets this turn needs; checked before it starts (none: its budget is given without that check). */
  needs: readonly BudgetNeed[];
  /** The usage command as the platform's users type it, named in budget refusals. */
  usageCommand?: string;
  /** The job's parking ({@link JobContext.park}): the wait for a press lets the worker slot go. @defaultValue kept */
  park?: JobContext['park'];
}

/** The hooks a turn's loop uses; each unset when its feature is off. */
export interface TurnGovernance {
  /** The daily budgets as this turn sees them; its notices are for the reply. */
  budget?: TurnBudget & { notices: string[] };
  /** Each run of the model's code waits on it (THREADLAB_APPROVAL=ask). */
  approve?: ApprovalHook;
}

/** A model turn as its audit line records it: how it ended, what it spent, how its answer's figures were checked. */
export interface AnsweredTurn {
  threadKey: string;
  /** Whose message the turn answered. */
  userId: string;
  /** How the model loop ended (a turn without a model, `not_configured`, has no line). */
  outcome: 'answer' | 'budget' | 'cancelled' | 'failed';
  model: string | undefined;
  /** Runs of code the turn made. */
  runs: number;
  usage: { promptTokens: number; completionTokens: number };
  durationMs: number;
  /** The check of the answer's figures; absent when it was not checked. */
  figures?: AnswerFigures;
}

/**
 * How a scheduled run ended: `ok`, `failed`, `cancelled` (someone pressed Stop), `skipped` (a queue limit let this
 * due time pass), or the schedule stopped before it ran (`stopped_access`, `stopped_budget`).
 */
export type ScheduledRunOutcome = 'ok' | 'failed' | 'cancelled' | 'skipped' | 'stopped_access' | 'stopped_budget';

/** A scheduled run as its audit line records it (kind `schedule`, `origin: "schedule"`). */
export interface ScheduledRun {
  threadKey: string;
  /** The schedule's creator, as whom it ran. */
  userId: string;
  scheduleId: string;
  task: 'rerun' | 'ask';
  outcome: ScheduledRunOutcome;
  /** The queue job that ran it, when one did. */
  jobId?: string;
  /** The schedule's failed runs in a row after this one, when counted. */
  failuresInRow?: number;
}

/**
 * Governance, behind one seam: who may use the bot where (access allowlists), who may stop a run, the daily
 * budgets, approval of the model's code, the audit trail and who wrote where (retention). Built once, in
 * the composition root (app/), from configuration; the core asks it and never reads its settings.
 */
export interface Governance {
  /**
   * The allowlists' verdict on `message`; a refusal carries its text and whether to tell it now (once per
   * place, unless `options.slashCommand` or a parsed command). `direct`: the message runs its own code.
   */
  admit(message: InboundMessage, options: AdmitOptions & { direct: boolean }): Promise<Admission>;
  /** Whether `byId` may stop a run `starterId` started on `platform`: the starter, or an approval admin. */
  mayStop(platform: Platform, byId: string, starterId: string): boolean;
  /** The budget and approval hooks of one turn; throws `budget_exceeded` when a budget it needs is spent. */
  forTurn(turn: GovernedTurn): Promise<TurnGovernance>;
  /** The `usage` command's answer: what the user and the workspace spent today and what is left. */
  usage(message: InboundMessage): Promise<string>;
  /** A Run or Skip press: decides the waiting request when the presser may. */
  onPress(platform: Platform, press: ApprovalPress): Promise<ApprovalPressOutcome>;
  /**
   * The audit line of a model turn that ended (kind `answer`: its outcome, runs, tokens and the counts of its
   * figures' check, no content). Never throws into the reply path.
   */
  recordAnswer(turn: AnsweredTurn): void;
  /** The audit line of a scheduled run (kind `schedule`, `origin: "schedule"`). Never throws into the reply path. */
  recordScheduledRun(run: ScheduledRun): void;
  /** Records who wrote in a thread, so `threadlab purge --user` finds it. Never throws into the reply path. */
  recordWriter(threadKey: string, userId: string): Promise<void>;
  /** Releases counters and boards (the bot's stop). */
  close(): Promise<void>;
}
