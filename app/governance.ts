/**
 * Governance, built here only: access allowlists and approval from configuration, the budgets' counters and
 * the approval board in the shared state (Redis when REDIS_URL is set), the audit trail, and the index of who
 * wrote where.
 */
import type { Config } from '../src/config/index.js';
import type { Logger } from '../src/logger.js';
import type { ApprovalBoard } from '../src/ports/approval-board.js';
import type { Governance, GovernanceSurface } from '../src/ports/governance.js';
import type { AuditLog } from '../src/governance/audit/audit-log.js';
import { budgetsEnabled, DailyBudgets } from '../src/governance/budget/budget.js';
import { ThreadlabGovernance } from '../src/governance/governance.js';
import { createParticipantIndex } from '../src/governance/retention/retention-index.js';
import type { StateBacking } from './state.js';

/** The stores governance is built on, which tests may replace (unset in `overrides`: from configuration). */
export interface GovernanceStores {
  /** The daily budgets (`undefined` given: none). */
  budgets?: DailyBudgets;
  /** Where approval requests wait (`undefined` given: in this process). */
  approvalBoard?: ApprovalBoard;
}

/** The daily budgets when any is set: counted in the shared state (by all workers with Redis), else in memory. */
export function createBudgets(config: Config, logger: Logger, state: StateBacking): DailyBudgets | undefined {
  if (!budgetsEnabled(config.budgets)) return undefined;
  const log = logger.child({ component: 'budgets' });
  return new DailyBudgets({ counters: state.budgetCounters(log), limits: config.budgets, logger: log });
}

export function createGovernance(
  config: Config,
  logger: Logger,
  options: {
    state: StateBacking;
    audit: AuditLog;
    overrides: GovernanceStores;
    surfaces: readonly GovernanceSurface[];
  },
): Governance {
  const { state, overrides: o } = options;
  const budgets = 'budgets' in o ? o.budgets : createBudgets(config, logger, state);
  // Asked for only with THREADLAB_APPROVAL=ask; undefined in memory, where the bot's own board serves.
  const board =
    'approvalBoard' in o ? () => o.approvalBoard : () => state.approvalBoard(logger.child({ component: 'approval' }));
  return new ThreadlabGovernance({
    config,
    logger,
    audit: options.audit,
    ...(budgets ? { budgets } : {}),
    approvalBoard: board,
    surfaces: options.surfaces,
    participants: createParticipantIndex(config.dataDir, (thread) =>
      logger.warn({ thread }, 'a thread has too many writers to record them all; purge --user may miss it'),
    ),
  });
}
