import type { Config } from '../../config/index.js';
import type { BudgetSpend } from '../../ports/budget.js';
import { formatSeconds } from './budget-day.js';

/** What a budget counts. */
export type Dimension = 'tokens' | 'runMs';

/** One budget (a scope and a dimension) with today's spend and the words to speak of it. */
export interface BudgetLimit {
  scope: 'user' | 'workspace';
  dimension: Dimension;
  /** The variable that sets it, for logs and the operator. */
  name: string;
  /** 0: no budget. Tokens, or ms of run time. */
  limit: number;
  used: number;
  refusal: string;
  warning: (percent: number) => string;
}

const fmt = (d: Dimension, n: number): string =>
  d === 'tokens' ? `${Math.round(n).toLocaleString('en-US')} tokens` : formatSeconds(n);
const what = (d: Dimension): string => (d === 'tokens' ? 'model token' : 'code run-time');

/** The four budgets of the configuration, with the spend of the user and the workspace (zero when not given). */
export function limitsOf(
  limits: Config['budgets'],
  spent?: { user: BudgetSpend; workspace: BudgetSpend },
): BudgetLimit[] {
  const zero = { tokens: 0, runMs: 0 };
  const make = (scope: BudgetLimit['scope'], dimension: Dimension, name: string, limit: number): BudgetLimit => {
    const used = (spent?.[scope] ?? zero)[dimension];
    const of = `${fmt(dimension, used)} of ${fmt(dimension, limit)}`;
    const who = scope === 'user' ? 'You have' : 'This workspace has';
    return {
      scope,
      dimension,
      name,
      limit,
      used,
      refusal: `${who} used ${scope === 'user' ? 'your' : 'its'} daily ${what(dimension)} budget (${of}), so this message was not run.`,
      warning: (p) =>
        `${who} used ${p} % of ${scope === 'user' ? 'your' : 'its'} daily ${what(dimension)} budget (${of}).`,
    };
  };
  return [
    make('user', 'tokens', 'THREADLAB_BUDGET_USER_DAILY_TOKENS', limits.userDailyTokens),
    make('user', 'runMs', 'THREADLAB_BUDGET_USER_DAILY_RUN_SECONDS', limits.userDailyRunSeconds * 1000),
    make('workspace', 'tokens', 'THREADLAB_BUDGET_WORKSPACE_DAILY_TOKENS', limits.workspaceDailyTokens),
    make('workspace', 'runMs', 'THREADLAB_BUDGET_WORKSPACE_DAILY_RUN_SECONDS', limits.workspaceDailyRunSeconds * 1000),
  ];
}

/** `/usage` lines: per scope and dimension, the spend, the budget and what is left. */
export function usageLines(budgets: BudgetLimit[]): string[] {
  return budgets.map((b) => {
    const label = `${b.scope === 'user' ? 'You' : 'This workspace'}, ${b.dimension === 'tokens' ? 'model tokens' : 'run time'}`;
    if (b.limit === 0) return `• ${label}: ${fmt(b.dimension, b.used)} used, no budget`;
    const left = Math.max(0, b.limit - b.used);
    const pct = Math.min(100, Math.floor((b.used * 100) / b.limit));
    return `• ${label}: ${fmt(b.dimension, b.used)} of ${fmt(b.dimension, b.limit)} used (${pct} %), ${fmt(b.dimension, left)} left`;
  });
}
