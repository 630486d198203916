import { describe, expect, it } from 'vitest';
import type { CodeCell } from '../../../src/domain/code-cells.js';
import type { ExecutionResult, ExecutionStatus } from '../../../src/domain/execution.js';
import type { TurnResult } from '../../../src/interpreter/turn.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { runInOrder } from '../../../src/core/run-cells.js';
import { rerunNotebook } from '../../../src/core/rerun-notebook.js';

const cells: CodeCell[] = ['a = 1', 'b = 2', 'c = 3'].map((code) => ({ language: 'python', code }));

/** A direct turn of one run ending `status`, or a turn that ended without a run (`outcome`). */
function turn(cell: CodeCell, status: ExecutionStatus, outcome: TurnResult['outcome'] = 'answer'): TurnResult {
  const result = { status } as ExecutionResult;
  return {
    outcome,
    text: outcome === 'answer' ? '' : 'Stopped at your request.',
    runs: outcome === 'answer' ? [{ ...cell, result }] : [],
    usage: { promptTokens: 0, completionTokens: 0 },
    durationMs: 1,
    direct: true,
  };
}

describe('cells run in order, as a notebook runs all', () => {
  it('runs every cell while each ends ok', async () => {
    const ran = await runInOrder(cells, async (cell) => turn(cell, 'ok'));
    expect(ran).toEqual({ runs: expect.any(Array), outcome: 'answer', text: '' });
    expect(ran.runs.map((r) => r.code)).toEqual(['a = 1', 'b = 2', 'c = 3']);
  });

  it('a run that does not end ok ends the rest, and says which and how', async () => {
    const ran = await runInOrder(cells, async (cell) => turn(cell, cell.code === 'b = 2' ? 'timeout' : 'ok'));
    expect(ran.runs.map((r) => r.code)).toEqual(['a = 1', 'b = 2']);
    expect(ran).toMatchObject({ outcome: 'answer', text: '', stop: { index: 1, status: 'timeout' } });
  });

  it('a turn that is stopped or refused ends the rest with its outcome and text', async () => {
    const ran = await runInOrder(cells, async (cell) =>
      turn(cell, 'ok', cell.code === 'a = 1' ? 'answer' : 'cancelled'),
    );
    expect(ran).toMatchObject({ outcome: 'cancelled', text: 'Stopped at your request.', stop: { index: 1 } });
    expect(ran.stop?.status).toBeUndefined();
  });

  it("a notebook's re-run stops at its first failing cell and counts what ran", async () => {
    const store = new MemoryConversationStore({ sweepIntervalMs: 0 });
    const limits = { maxEntries: 10, maxBytes: 100_000, ttlMs: 60_000 };
    for (const cell of cells) await store.appendExport('t', { kind: 'run', ...cell, outputs: [], atMs: 1 }, limits);
    const result = await rerunNotebook({
      store,
      threadKey: 't',
      run: async (cell) => {
        if ('query' in cell) throw new Error('no query was recorded');
        return turn(cell, cell.code === 'b = 2' ? 'error' : 'ok');
      },
    });
    expect(result.text).toBe("Re-ran 2 of 3 cells of this thread's notebook.");
    expect(result.outcome).toBe('answer');
    await store.close();
  });

  it('a recorded query is asked again in place of its loading cell; one recorded without its SQL is named stale', async () => {
    const store = new MemoryConversationStore({ sweepIntervalMs: 0 });
    const limits = { maxEntries: 10, maxBytes: 100_000, ttlMs: 60_000 };
    const entry = (code: string, extra: object = {}) =>
      store.appendExport('t', { kind: 'run', language: 'python', code, outputs: [], atMs: 1, ...extra }, limits);
    await entry('old = pd.read_csv("/mnt/data/query_1_sales.csv")', { queryFile: 'query_1_sales.csv' });
    const query = { source: 'sales', sql: 'SELECT 1 AS one', name: 'fresh' };
    await entry('fresh = pd.read_csv("/mnt/data/query_2_sales.csv")', { queryFile: 'query_2_sales.csv', query });
    await entry('print(fresh)');
    const asked: unknown[] = [];
    const result = await rerunNotebook({
      store,
      threadKey: 't',
      run: async (cell) => {
        asked.push(cell);
        return 'query' in cell ? turn({ language: 'python', code: 'loaded' }, 'ok') : turn(cell, 'ok');
      },
    });
    expect(asked).toEqual([
      { language: 'python', code: 'old = pd.read_csv("/mnt/data/query_1_sales.csv")' },
      { query: { ...query, file: 'query_2_sales.csv' } },
      { language: 'python', code: 'print(fresh)' },
    ]);
    expect(result.outcome).toBe('answer');
    expect(result.text).toContain('Not queried again, loaded as saved when first asked (stale): `query_1_sales.csv`.');
    expect(result.text).not.toContain('query_2_sales.csv');
    await store.close();
  });

  it('a query that does not run again ends the re-run as failed, in plain words, before the cells using it', async () => {
    const store = new MemoryConversationStore({ sweepIntervalMs: 0 });
    const limits = { maxEntries: 10, maxBytes: 100_000, ttlMs: 60_000 };
    const query = { source: 'sales', sql: 'SELECT 1 AS one', name: 'fresh' };
    const run = { kind: 'run' as const, language: 'python' as const, outputs: [], atMs: 1 };
    await store.appendExport('t', { ...run, code: 'load', queryFile: 'query_1_sales.csv', query }, limits);
    await store.appendExport('t', { ...run, code: 'print(fresh)' }, limits);
    const said = 'Source `sales` could not be reached: check that its server runs.';
    const ran: unknown[] = [];
    const result = await rerunNotebook({
      store,
      threadKey: 't',
      run: async (cell) => {
        ran.push(cell);
        return { ...turn({ language: 'python', code: '' }, 'ok'), runs: [], text: said };
      },
    });
    expect(ran).toHaveLength(1);
    expect(result.outcome).toBe('failed');
    expect(result.text).toContain(`The query on \`sales\` could not run again: ${said}`);
    expect(result.text).toContain('Re-ran 0 of 2 cells');
    await store.close();
  });
});
