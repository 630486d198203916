import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config/index.js';
import { intentOf } from '../../src/core/read-intent.js';
import type { InboundMessage } from '../../src/domain/messages.js';
import { AccessGate } from '../../src/governance/access/access-gate.js';
import { parseAllowlist } from '../../src/config/access-lists.js';
import { MemoryApprovalBoard } from '../../src/governance/approval/approval-memory-board.js';
import { DailyBudgets } from '../../src/governance/budget/budget.js';
import type { Logger } from '../../src/logger.js';
import type { ApprovalBoard, BoardDecision } from '../../src/ports/approval-board.js';
import type { BudgetCounters } from '../../src/ports/budget.js';
import { time } from './bench-stats.js';

/** Ids of the shape each allowlist expects: Slack channels C…, users U…. */
const slackIds = (prefix: string, count: number): string[] =>
  Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(8, '0')}`);

/**
 * Access checks of an allowed Slack message against lists of `entries` places and `entries` people,
 * timed in batches of `batch` (one check is well under the timer's resolution); milliseconds per check.
 */
export async function accessCheckSamples(o: {
  entries: number;
  samples: number;
  batch: number;
  logger: Logger;
}): Promise<number[]> {
  const places = slackIds('C', o.entries);
  const users = slackIds('U', o.entries);
  const list = (ids: string[]) => ids.map((id) => `slack:${id}`).join(',');
  const gate = new AccessGate({
    policy: { places: parseAllowlist(list(places), 'place'), users: parseAllowlist(list(users), 'who') },
    help: 'Ask the admins.',
    logger: o.logger,
  });
  const message: InboundMessage = {
    id: 'bench',
    thread: { platform: 'slack', workspace: 'T0BENCH', channel: places.at(-1)!, thread: '1.1' },
    user: { id: users.at(-1)! },
    text: 'a question',
    attachments: [],
    receivedAtMs: Date.now(),
  };
  const direct = intentOf(message).kind === 'run';
  if (await gate.check(message, direct, undefined))
    throw new Error('governance bench: the allowed message was refused');
  const batches = await time(o.samples, async () => {
    for (let i = 0; i < o.batch; i++) await gate.check(message, direct, undefined);
  });
  return batches.map((ms) => ms / o.batch);
}

/** What a turn asks of the budgets: admitted before it starts, charged after a model call and a run, checked between rounds. */
export async function budgetTurnSamples(o: {
  counters: BudgetCounters;
  samples: number;
  logger: Logger;
}): Promise<number[]> {
  const limits = loadConfig({
    THREADLAB_BUDGET_USER_DAILY_TOKENS: '1000000000',
    THREADLAB_BUDGET_WORKSPACE_DAILY_RUN_SECONDS: '1000000000',
  }).budgets;
  const budgets = new DailyBudgets({ counters: o.counters, limits, logger: o.logger });
  const subject = { platform: 'slack', workspace: `T-bench-${randomUUID().slice(0, 8)}`, user: 'U-bench' };
  return time(o.samples, async () => {
    await budgets.admit(subject, ['tokens', 'runMs']);
    const turn = budgets.forTurn(subject);
    await turn.charge({ tokens: 300 });
    await turn.charge({ runMs: 40 });
    if (await turn.exceeded()) throw new Error('governance bench: a budget of a billion ran out');
  });
}

/**
 * A press decided where it arrived (`pressing`) until the waiting side (`waiting`) hears of it: the time an
 * approval adds between the press and the run starting. Requests are opened before each sample, untimed.
 */
export async function approvalDeliverySamples(o: {
  waiting: ApprovalBoard;
  pressing: ApprovalBoard;
  samples: number;
}): Promise<number[]> {
  let id = '';
  let heard: Promise<BoardDecision> = Promise.resolve({ kind: 'run', by: '' });
  const samples = await time(
    o.samples,
    async () => {
      if (!(await o.pressing.decide(id, { kind: 'run', by: 'U-bench' })))
        throw new Error('governance bench: a press found its request decided already');
      await heard;
    },
    async () => {
      if (id) await o.waiting.close(id);
      id = randomUUID();
      let resolve: (decision: BoardDecision) => void = () => undefined;
      heard = new Promise<BoardDecision>((r) => (resolve = r));
      await o.waiting.open(id, { platform: 'slack', askerId: 'U-bench' }, 60_000, resolve);
    },
  );
  await o.waiting.close(id);
  return samples;
}

/** Two handles on one in-process board: a single process both waits and takes the press. */
export function memoryBoards(): { waiting: ApprovalBoard; pressing: ApprovalBoard } {
  const board = new MemoryApprovalBoard();
  return { waiting: board, pressing: board };
}
