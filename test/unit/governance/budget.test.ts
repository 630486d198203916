import { describe, expect, it } from 'vitest';
import { MemoryBudgetCounters } from '../../../src/governance/budget/budget-memory-counters.js';
import { budgetContract } from '../../contract/budget-contract.js';

budgetContract('MemoryBudgetCounters', () => {
  const counters = new MemoryBudgetCounters();
  return Promise.resolve({ counters, dispose: () => counters.close() });
});

describe('MemoryBudgetCounters bound', () => {
  it('refuses a new key past maxKeys instead of forgetting an old one; a new day starts empty', async () => {
    const counters = new MemoryBudgetCounters({ maxKeys: 3 });
    const spend = { tokens: 1, runMs: 0 };
    await counters.add({ day: '2026-11-23', keys: ['a', 'b'], spend });
    await counters.add({ day: '2026-11-23', keys: ['c'], spend });
    await expect(counters.add({ day: '2026-11-23', keys: ['d'], spend })).rejects.toMatchObject({
      code: 'budget_exceeded',
      message: expect.stringContaining('REDIS_URL'),
    });
    // Known keys still count.
    expect(await counters.add({ day: '2026-11-23', keys: ['a'], spend })).toEqual([{ tokens: 2, runMs: 0 }]);
    expect(counters.size).toBe(3);
    await counters.add({ day: '2026-11-24', keys: ['d'], spend });
    expect(counters.size).toBe(1);
  });
});
