import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { DailyBudgets } from '../../../src/governance/budget/budget.js';
import { MemoryBudgetCounters } from '../../../src/governance/budget/budget-memory-counters.js';
import { answer, runCode, ScriptedLlm } from '../../fakes/scripted-llm.js';
import { input, rig, silentLogger } from '../interpreter/helpers.js';

describe('daily token budget inside a turn (interpreter loop)', () => {
  it('stops the model between rounds once the user budget is spent, saying when it resets', async () => {
    // Each scripted response reports 120 tokens; 300 a day: rounds 1-3 run (360 spent), round 4 is refused.
    const llm = new ScriptedLlm({
      steps: [runCode('a = 1'), runCode('b = 2'), runCode('c = 3'), runCode('d = 4'), answer('done')],
    });
    const { interpreter, sandbox } = rig({ llm });
    sandbox.enqueue({ stdout: '' }, { stdout: '' }, { stdout: '' }, { stdout: '' });
    const budgets = new DailyBudgets({
      counters: new MemoryBudgetCounters(),
      limits: loadConfig({ THREADLAB_BUDGET_USER_DAILY_TOKENS: '300' }).budgets,
      logger: silentLogger,
    });
    const subject = { platform: 'web', workspace: 'local', user: 'u1' };
    const budget = budgets.forTurn(subject);

    const result = await interpreter.handle(input('count'), { budget });

    expect(llm.requests).toHaveLength(3);
    expect(result.outcome).toBe('budget');
    expect(result.text).toContain('You have used your daily model token budget (360 tokens of 300 tokens)');
    expect(result.text).toMatch(/It resets at 00:00 UTC \(\d{4}-\d\d-\d\d\), in \d/);
    expect(result.runs).toHaveLength(3);
    expect(budget.notices).toHaveLength(1);
    expect(budget.notices[0]).toContain('80 % of your daily model token budget (240 tokens of 300 tokens)');
    await expect(budgets.admit(subject, ['tokens'])).rejects.toMatchObject({ code: 'budget_exceeded' });
  });
});
