import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { DailyBudgets } from '../../src/governance/budget/budget.js';
import { createLogger } from '../../src/logger.js';
import type { BudgetCounters } from '../../src/ports/budget.js';

/** A fresh counters instance and its cleanup. */
export type CountersFactory = () => Promise<{ counters: BudgetCounters; dispose(): Promise<void> }>;

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** 21:00 UTC of the day `offsetDays` from the real today: the budgets reset 3 h later. */
export function anchorAt(offsetDays: number, realNowMs = Date.now()): number {
  return Math.floor(realNowMs / DAY_MS) * DAY_MS + offsetDays * DAY_MS + 21 * HOUR_MS;
}

/**
 * The days the contract runs on, relative to the real clock so it holds whenever it runs: today, a week
 * ago and a week ahead (an injected clock far from the store's own must not change the outcome), and the
 * same day a month either way.
 */
export const CONTRACT_DAYS = [0, -7, 7, -30, 30] as const;

const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

function budgetsWith(counters: BudgetCounters, env: Record<string, string>, clock: { ms: number }) {
  const lines: { level: string; msg: string; obj: Record<string, unknown> }[] = [];
  const logger = createLogger({ level: 'silent' });
  // Record the warn lines the budgets write (the 80 % log line).
  const spy = Object.assign(Object.create(logger) as typeof logger, {
    child: () => spy,
    warn: (obj: Record<string, unknown>, msg: string) => lines.push({ level: 'warn', msg, obj }),
    info: (obj: Record<string, unknown>, msg: string) => lines.push({ level: 'info', msg, obj }),
  });
  const budgets = new DailyBudgets({ counters, limits: loadConfig(env).budgets, logger: spy, now: () => clock.ms });
  return { budgets, lines };
}

const ann = { platform: 'slack', workspace: 'T1', user: 'U-ann' };
const bob = { platform: 'slack', workspace: 'T1', user: 'U-bob' };
const other = { platform: 'slack', workspace: 'T2', user: 'U-ann' };

/** One suite for every BudgetCounters implementation, through DailyBudgets as the worker uses it. */
export function budgetContract(name: string, factory: CountersFactory): void {
  describe.each(CONTRACT_DAYS.map((offset) => ({ offset })))(
    `daily budgets on ${name}, clock $offset days from today`,
    ({ offset }) => {
      const T0 = anchorAt(offset);
      const resetDay = isoDay(T0 + DAY_MS);
      it('a user budget is reached and refused with the reset time; the 80 % notice comes once; usage shows what is left', async () => {
        const { counters, dispose } = await factory();
        try {
          const clock = { ms: T0 };
          const { budgets, lines } = budgetsWith(counters, { THREADLAB_BUDGET_USER_DAILY_TOKENS: '1000' }, clock);
          await budgets.admit(ann, ['tokens', 'runMs']);
          const turn = budgets.forTurn(ann);
          await turn.charge({ tokens: 700 });
          expect(turn.notices).toEqual([]);
          expect(await turn.exceeded()).toBeUndefined();
          await turn.charge({ tokens: 150 }); // 850: past 80 %
          expect(turn.notices).toHaveLength(1);
          expect(turn.notices[0]).toContain('85 % of your daily model token budget (850 tokens of 1,000 tokens)');
          expect(turn.notices[0]).toContain(`at 00:00 UTC (${resetDay}), in 3 h 0 min`);
          expect(lines.filter((l) => l.msg === 'budget warning share reached')).toHaveLength(1);
          await turn.charge({ tokens: 50 }); // still past 80 %: no second notice, no second log line
          const again = budgets.forTurn(ann);
          await again.charge({ tokens: 10 });
          expect(turn.notices).toHaveLength(1);
          expect(again.notices).toEqual([]);
          expect(lines.filter((l) => l.msg === 'budget warning share reached')).toHaveLength(1);

          expect(await budgets.usageText(ann)).toContain(
            'You, model tokens: 910 tokens of 1,000 tokens used (91 %), 90 tokens left',
          );
          await again.charge({ tokens: 100 }); // 1,010: spent
          expect(await again.exceeded()).toMatch(
            /You have used your daily model token budget \(1,010 tokens of 1,000 tokens\)/,
          );
          clock.ms += 90 * 60 * 1000;
          await expect(budgets.admit(ann, ['tokens', 'runMs'])).rejects.toMatchObject({
            code: 'budget_exceeded',
            isPolicy: true,
            message: expect.stringContaining(`It resets at 00:00 UTC (${resetDay}), in 1 h 30 min`),
          });
          // A token budget does not stop code the user sent (run time only), nor another user.
          await budgets.admit(ann, ['runMs']);
          await budgets.admit(bob, ['tokens', 'runMs']);
          // After midnight UTC the budget is whole again.
          clock.ms = T0 + 3 * HOUR_MS + 1000;
          await budgets.admit(ann, ['tokens', 'runMs']);
          expect(await budgets.usageText(ann)).toContain(
            'You, model tokens: 0 tokens of 1,000 tokens used (0 %), 1,000 tokens left',
          );
        } finally {
          await dispose();
        }
      });

      it('a workspace run-time budget is shared by its users and not by another workspace', async () => {
        const { counters, dispose } = await factory();
        try {
          const clock = { ms: T0 };
          const { budgets } = budgetsWith(counters, { THREADLAB_BUDGET_WORKSPACE_DAILY_RUN_SECONDS: '10' }, clock);
          const a = budgets.forTurn(ann);
          await a.charge({ runMs: 6000 });
          expect(await a.runMsLeft()).toBe(4000);
          const b = budgets.forTurn(bob);
          await b.charge({ runMs: 3000 }); // 9 s of 10: the workspace passes 80 % on bob's run
          expect(b.notices[0]).toContain(
            'This workspace has used 90 % of its daily code run-time budget (9 s of 10 s)',
          );
          await b.charge({ runMs: 1500 });
          await expect(budgets.admit(ann, ['runMs'])).rejects.toMatchObject({
            code: 'budget_exceeded',
            message: expect.stringContaining('This workspace has used its daily code run-time budget (10.5 s of 10 s)'),
          });
          await budgets.admit(other, ['runMs']);
          expect(await budgets.usageText(bob)).toContain(
            'This workspace, run time: 10.5 s of 10 s used (100 %), 0 s left',
          );
          expect(await budgets.usageText(other)).toContain(
            'This workspace, run time: 0 s of 10 s used (0 %), 10 s left',
          );
        } finally {
          await dispose();
        }
      });

      it('holds: turns asking at once share what is left, a refused hold gives its share back, a settle replaces the hold', async () => {
        const { counters, dispose } = await factory();
        try {
          const clock = { ms: T0 };
          const env = { THREADLAB_BUDGET_USER_DAILY_RUN_SECONDS: '2', THREADLAB_BUDGET_USER_DAILY_TOKENS: '1000' };
          const { budgets } = budgetsWith(counters, env, clock);
          // Four runs of 8 s asked for at the same moment against 2 s: one holds its 8 s, three are refused.
          const holds = await Promise.all([1, 2, 3, 4].map(() => budgets.forTurn(ann).hold({ runMs: 8000 })));
          const granted = holds.filter((h) => 'granted' in h);
          expect(granted).toHaveLength(1);
          expect(granted[0]!.granted).toEqual({ tokens: 0, runMs: 8000 });
          for (const h of holds.filter((h) => 'refused' in h))
            expect(h.refused).toMatch(/You have used your daily code run-time budget \([\d.]+ s of 2 s\)/);
          // The refused holds gave theirs back: only the granted 8 s is held.
          expect(await budgets.usageText(ann)).toContain('You, run time: 8 s of 2 s used (100 %), 0 s left');
          await granted[0]!.settle({ runMs: 1500 });
          await granted[0]!.settle({ runMs: 9000 }); // once only
          const turn = budgets.forTurn(ann);
          expect(await turn.runMsLeft()).toBe(500);
          // Not spent yet: a run is held whole (a run already started finishes), and settled to what it took.
          const rest = await turn.hold({ runMs: 8000 });
          expect('granted' in rest && rest.granted.runMs).toBe(8000);
          if ('granted' in rest) await rest.settle({ runMs: 0 });
          expect(await turn.runMsLeft()).toBe(500);
          // Token estimates are held whole while the budget is not spent: the third asks after 1,200 are held.
          const t = [
            await turn.hold({ tokens: 600 }),
            await turn.hold({ tokens: 600 }),
            await turn.hold({ tokens: 600 }),
          ];
          expect(t.map((h) => ('granted' in h ? h.granted.tokens : 'refused'))).toEqual([600, 600, 'refused']);
          for (const h of t) if ('granted' in h) await h.settle({ tokens: 100 });
          expect(await budgets.usageText(ann)).toContain('You, model tokens: 200 tokens of 1,000 tokens used (20 %)');
          // A hold settled after midnight UTC settles on its own day: the new day starts whole.
          const late = await budgets.forTurn(bob).hold({ runMs: 2000 });
          clock.ms = T0 + 3 * HOUR_MS + 1000;
          await budgets.forTurn(ann).charge({ tokens: 1 }); // the new day begins in the store
          if ('granted' in late) await late.settle({ runMs: 100 });
          expect(await budgets.usageText(bob)).toContain('You, run time: 0 s of 2 s used (0 %), 2 s left');
        } finally {
          await dispose();
        }
      });

      it('no budget set: nothing is refused and usage says so', async () => {
        const { counters, dispose } = await factory();
        try {
          const { budgets } = budgetsWith(counters, {}, { ms: T0 });
          await budgets.admit(ann, ['tokens', 'runMs']);
          expect(await budgets.usageText(ann)).toMatch(/No daily budgets are set/);
        } finally {
          await dispose();
        }
      });
    },
  );
}
