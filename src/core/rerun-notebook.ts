import type { Language } from '../domain/execution.js';
import type { Reply } from '../domain/reply.js';
import type { TurnResult } from '../interpreter/turn.js';
import { runInOrder } from './run-cells.js';
import type { Sandbox } from '../ports/sandbox.js';
import type { ConversationStore } from '../ports/conversation-store.js';

/** Most cells one re-run runs; the rest are named as not run. */
export const MAX_RERUN_CELLS = 100;

/**
 * Re-runs a thread's notebook — the code that ran successfully, in order, as `export` puts it in `thread.ipynb` —
 * one cell at a time through `run` (a direct run of the thread). It stops at the first cell that fails, is stopped
 * or is refused by a budget, as a notebook's "run all" does. Nothing is added to the export log (a re-run would
 * otherwise double the notebook it re-runs). Never throws for the user's code: its failure is in the runs.
 */
export async function rerunNotebook(o: {
  store: ConversationStore;
  threadKey: string;
  run: (cell: { language: Language; code: string }) => Promise<TurnResult>;
}): Promise<TurnResult> {
  const startedMs = Date.now();
  const cells = (await o.store.readExport(o.threadKey)).entries.flatMap((e) =>
    e.kind === 'run' ? [{ language: e.language, code: e.code }] : [],
  );
  const { runs, outcome, text: stoppedBy } = await runInOrder(cells.slice(0, MAX_RERUN_CELLS), o.run);
  const lines = [`Re-ran ${runs.length} of ${cells.length} cells of this thread's notebook.`];
  if (cells.length === 0) lines[0] = "This thread's notebook has no code to re-run (it may have expired).";
  if (cells.length > MAX_RERUN_CELLS) lines.push(`Only the first ${MAX_RERUN_CELLS} cells are re-run.`);
  if (stoppedBy) lines.push(stoppedBy);
  return {
    outcome: cells.length === 0 ? 'failed' : outcome,
    text: lines.join('\n'),
    runs,
    usage: { promptTokens: 0, completionTokens: 0 },
    durationMs: Date.now() - startedMs,
    direct: true,
  };
}

/**
 * A scheduled re-run, as a notebook's "restart and run all": the thread's container is retired first (variables
 * saved, files kept), `restore` brings back uploads a new worker lacks (its notes are for the reply), then the
 * notebook's cells run in the fresh container.
 */
export async function rerunInFreshContainer(o: {
  sandbox: Sandbox;
  store: ConversationStore;
  threadKey: string;
  restore: () => Promise<string[]>;
  run: (cell: { language: Language; code: string }) => Promise<TurnResult>;
}): Promise<{ turn: TurnResult; notes: string[] }> {
  await o.sandbox.recycle?.(o.threadKey);
  const notes = await o.restore();
  const turn = await rerunNotebook({ store: o.store, threadKey: o.threadKey, run: o.run });
  return { turn, notes };
}

/** A re-run's reply is an error when a cell failed: a schedule counts it towards its failures in a row. */
export function rerunReply(turn: TurnResult, reply: Reply): Reply {
  if (turn.runs.some((r) => r.result.status !== 'ok')) reply.kind = 'error';
  return reply;
}
