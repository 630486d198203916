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
      run: async (cell) => turn(cell, cell.code === 'b = 2' ? 'error' : 'ok'),
    });
    expect(result.text).toBe("Re-ran 2 of 3 cells of this thread's notebook.");
    expect(result.outcome).toBe('answer');
    await store.close();
  });
});
