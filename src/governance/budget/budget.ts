import { createHash } from 'node:crypto';
import type { Config } from '../../config/index.js';
import { ThreadlabError } from '../../domain/errors.js';
import type { Logger } from '../../logger.js';
import type { BudgetCounters, BudgetHold, BudgetSpend, TurnBudget } from '../../ports/budget.js';
import { budgetDay, budgetResetAtMs, describeReset } from './budget-day.js';
import { limitsOf, usageLines, type BudgetLimit, type Dimension } from './budget-text.js';

/** Whose spend counts: the user, and the workspace (as the platform names it; `local`) of the platform. */
export interface BudgetSubject {
  platform: string;
  workspace: string;
  user: string;
  /** How this user asks what is left, named by a refusal (their platform's profile). @defaultValue 'usage' */
  usageCommand?: string;
}

/** Options of {@link DailyBudgets}. */
export interface DailyBudgetsOptions {
  counters: BudgetCounters;
  limits: Config['budgets'];
  logger: Logger;
  /** The clock, epoch ms (tests move it across midnight). @defaultValue Date.now */
  now?: () => number;
}

/** A key part from a platform id; hostile ids are claims, so a long one is hashed to keep keys bounded. */
function part(id: string): string {
  const enc = encodeURIComponent(id);
  return enc.length <= 120 ? enc : `h-${createHash('sha256').update(id).digest('hex')}`;
}

const NONE: BudgetSpend = { tokens: 0, runMs: 0 };
const nonNegative = (n: number | undefined): number => Math.max(0, n ?? 0);
/** `a - b` per dimension, never below zero (a total read while holds are given back). */
const minus = (a: BudgetSpend, b: BudgetSpend): BudgetSpend => ({
  tokens: Math.max(0, a.tokens - b.tokens),
  runMs: Math.max(0, a.runMs - b.runMs),
});
const negate = (a: BudgetSpend): BudgetSpend => ({ tokens: -a.tokens, runMs: -a.runMs });
/** What to add to turn a hold into the real cost: negative where the work spent less than it held. */
const change = (real: BudgetSpend, held: BudgetSpend): BudgetSpend => ({
  tokens: real.tokens - held.tokens,
  runMs: real.runMs - held.runMs,
});
/** Counters are kept for the rest of the day and an hour more, as a duration: the store applies it on its own clock. */
const keepMsAt = (nowMs: number): number => budgetResetAtMs(nowMs) - nowMs + 60 * 60 * 1000;

/** Whether any budget is set; without one nothing is counted. */
export function budgetsEnabled(limits: Config['budgets']): boolean {
  return limitsOf(limits).some((l) => l.limit > 0);
}

/**
 * Token and run-time budgets per user and per workspace per UTC day. A turn is refused before it starts
 * once a budget it needs is spent, and stopped between model rounds when one runs out; the user is told
 * once, and a line is logged, when a budget passes the warning share. Work holds its cost before it starts
 * ({@link TurnBudget.hold}) and starts only while the budget, with what work in progress holds, is not spent; a
 * run already started finishes. So however many turns run at once, a run-time budget is passed by at most one
 * run's time limit, and a token budget by at most one request's tokens beyond what was held for it.
 */
export class DailyBudgets {
  private readonly now: () => number;

  constructor(private readonly options: DailyBudgetsOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Throws `budget_exceeded` (a policy refusal saying when the budget resets) when one of the budgets
   * this kind of turn needs is spent: run time for code the user sent, both for a question to the model.
   */
  async admit(subject: BudgetSubject, needs: readonly Dimension[]): Promise<void> {
    const refusal = await this.refusal(subject, needs);
    if (refusal) throw new ThreadlabError('budget_exceeded', refusal, { isPolicy: true });
  }

  /** The budgets as one turn sees them; its notices are for the reply. */
  forTurn(subject: BudgetSubject): TurnBudget & { notices: string[] } {
    const notices: string[] = [];
    return {
      notices,
      exceeded: () => this.refusal(subject, ['tokens', 'runMs']),
      charge: async (spent) => {
        const spend = { tokens: nonNegative(spent.tokens), runMs: nonNegative(spent.runMs) };
        if (spend.tokens === 0 && spend.runMs === 0) return;
        notices.push(...(await this.charge(subject, spend)));
      },
      runMsLeft: async () => {
        const run = (await this.state(subject)).filter((l) => l.dimension === 'runMs' && l.limit > 0);
        return run.length ? Math.max(0, Math.min(...run.map((l) => l.limit - l.used))) : undefined;
      },
      hold: async (wanted) => {
        const held = await this.hold(subject, wanted);
        if ('refused' in held) return held;
        const turnHold: BudgetHold = {
          granted: held.granted,
          settle: async (spent) => void notices.push(...(await held.settle(spent))),
        };
        return turnHold;
      },
    };
  }

  /**
   * Adds `wanted` to today's counters at once (one atomic add per key, in memory and in Redis alike), so two turns
   * asking together cannot both see the budget free: the one whose add found it spent gives its hold back and is
   * refused.
   */
  private async hold(
    subject: BudgetSubject,
    wanted: Partial<BudgetSpend>,
  ): Promise<{ refused: string } | { granted: BudgetSpend; settle(spent: Partial<BudgetSpend>): Promise<string[]> }> {
    const want = { tokens: nonNegative(wanted.tokens), runMs: nonNegative(wanted.runMs) };
    const { counters, limits } = this.options;
    const { at, keys } = this.where(subject);
    const add = (spend: BudgetSpend) => counters.add({ ...at, keys, spend });
    const [user, workspace] = await add(want);
    const before = limitsOf(limits, { user: minus(user!, want), workspace: minus(workspace!, want) });
    const spent = before.find((l) => l.limit > 0 && want[l.dimension] > 0 && l.used >= l.limit);
    if (spent) {
      await add(negate(want));
      // Told with the totals after the give-back: asks made at the same moment are not counted in the text.
      const now = (await this.state(subject)).find((l) => l.scope === spent.scope && l.dimension === spent.dimension);
      return { refused: this.refused(subject, now && now.used >= now.limit ? now : spent) };
    }
    let settled = false;
    return {
      granted: want,
      settle: async (spentNow) => {
        if (settled) return [];
        settled = true;
        const real = { tokens: nonNegative(spentNow.tokens), runMs: nonNegative(spentNow.runMs) };
        // On the day of the hold, so midnight between hold and settle moves nothing into the new day.
        return this.warnings(subject, await add(change(real, want)), at);
      },
    };
  }

  /** What `/usage` shows: today's spend and what is left, for the user and the workspace. */
  async usageText(subject: BudgetSubject): Promise<string> {
    if (!budgetsEnabled(this.options.limits))
      return 'No daily budgets are set on this Threadlab (THREADLAB_BUDGET_*), so nothing is counted.';
    const nowMs = this.now();
    return [
      `Usage today (UTC day ${budgetDay(nowMs)}):`,
      ...usageLines(await this.state(subject)),
      `Budgets reset ${describeReset(nowMs)}.`,
    ].join('\n');
  }

  close(): Promise<void> {
    return this.options.counters.close();
  }

  private keys(s: BudgetSubject): { user: string; workspace: string } {
    const ws = `${part(s.platform)}:${part(s.workspace)}`;
    return { user: `u:${ws}:${part(s.user)}`, workspace: `w:${ws}` };
  }

  /** Every budget with today's spend. */
  private async state(subject: BudgetSubject): Promise<BudgetLimit[]> {
    const k = this.keys(subject);
    const [user, workspace] = await this.options.counters.read(budgetDay(this.now()), [k.user, k.workspace]);
    return limitsOf(this.options.limits, { user: minus(user!, NONE), workspace: minus(workspace!, NONE) });
  }

  private async refusal(subject: BudgetSubject, needs: readonly Dimension[]): Promise<string | undefined> {
    if (!budgetsEnabled(this.options.limits)) return undefined;
    const spent = (await this.state(subject)).find(
      (l) => l.limit > 0 && needs.includes(l.dimension) && l.used >= l.limit,
    );
    return spent ? this.refused(subject, spent) : undefined;
  }

  private refused(subject: BudgetSubject, spent: BudgetLimit): string {
    this.options.logger.info(
      { ...subject, budget: spent.name, used: spent.used, limit: spent.limit },
      'budget refused',
    );
    return `${spent.refusal} It resets ${describeReset(this.now())}. Send \`${subject.usageCommand ?? 'usage'}\` to see what is left.`;
  }

  /** Adds the spend; returns a notice for each budget that passed the warning share for the first time today. */
  private async charge(subject: BudgetSubject, spend: BudgetSpend): Promise<string[]> {
    const { at, keys } = this.where(subject);
    return this.warnings(subject, await this.options.counters.add({ ...at, keys, spend }), at);
  }

  /** Where a spend of `subject` made now is added: today's counters of the user and the workspace, and how long they are kept. */
  private where(subject: BudgetSubject): { at: { day: string; keepMs: number }; keys: string[] } {
    const nowMs = this.now();
    const k = this.keys(subject);
    return { at: { day: budgetDay(nowMs), keepMs: keepMsAt(nowMs) }, keys: [k.user, k.workspace] };
  }

  /** A notice for each budget the totals put past the warning share for the first time on that day. */
  private async warnings(
    subject: BudgetSubject,
    [user, workspace]: BudgetSpend[],
    { day, keepMs }: { day: string; keepMs: number },
  ): Promise<string[]> {
    const { counters, limits, logger } = this.options;
    const nowMs = this.now();
    const k = this.keys(subject);
    const notices: string[] = [];
    for (const l of limitsOf(limits, { user: user!, workspace: workspace! })) {
      if (l.limit === 0 || l.used * 100 < l.limit * limits.warnPercent) continue;
      const key = l.scope === 'user' ? k.user : k.workspace;
      if (!(await counters.claimOnce({ day, key, flag: `warn:${l.dimension}`, keepMs }))) continue;
      const percent = Math.floor((l.used * 100) / l.limit);
      logger.warn(
        { ...subject, budget: l.name, used: l.used, limit: l.limit, percent },
        'budget warning share reached',
      );
      notices.push(`⚠️ ${l.warning(percent)} It resets ${describeReset(nowMs)}.`);
    }
    return notices;
  }
}
