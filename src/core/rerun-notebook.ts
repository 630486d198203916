import type { CodeCell } from '../domain/code-cells.js';
import type { Reply } from '../domain/reply.js';
import type { TurnResult } from '../interpreter/turn.js';
import { runInOrder } from './run-cells.js';
import type { Sandbox } from '../ports/sandbox.js';
import type { ConversationStore, ExportEntry } from '../ports/conversation-store.js';

/** Most cells one re-run runs; the rest are named as not run. */
export const MAX_RERUN_CELLS = 100;

/** A query a re-run asks its source again: the recorded source, SQL and DataFrame name, and the CSV it wrote. */
export interface RerunQuery {
  source: string;
  sql: string;
  name: string;
  file?: string;
}

/** A cell of a re-run: recorded code, run as is, or a recorded query, asked again. */
export type RerunCell = CodeCell | { query: RerunQuery };

/** The cells of a thread's export log, and the saved query results that a cell loads as they are (not asked again). */
function cellsOf(entries: readonly ExportEntry[]): { cells: RerunCell[]; stale: string[] } {
  const cells: RerunCell[] = [];
  const stale: string[] = [];
  for (const e of entries) {
    if (e.kind !== 'run') continue;
    if (e.query) cells.push({ query: { ...e.query, ...(e.queryFile ? { file: e.queryFile } : {}) } });
    else {
      // Recorded before re-runs re-queried (or its SQL was over the export's limit): its saved rows load as they are.
      if (e.queryFile) stale.push(e.queryFile);
      cells.push({ language: e.language, code: e.code });
    }
  }
  return { cells, stale };
}

/** A query that did not run again (refused, unreachable, no longer allowed…) ends the re-run, said plainly. */
function queryFailed(query: RerunQuery, turn: TurnResult): TurnResult {
  const why = turn.text.trim() || 'it returned nothing.';
  return {
    ...turn,
    outcome: 'failed',
    text:
      `The query on \`${query.source}\` could not run again: ${why}\n` +
      `The cells after it did not run, so nothing in this re-run comes from old rows of \`${query.source}\`.`,
  };
}

/**
 * Re-runs a thread's notebook — what ran successfully, in order, as `export` puts it in `thread.ipynb` — one cell at a
 * time: code through `run` as a direct run of the thread, and each recorded query asked again through `run` (same
 * source, SQL and DataFrame name, in the scope of whoever re-runs: access, audit and budget as for any query), so a
 * report shows today's rows, not the CSV saved when it was made. It stops at the first cell that fails, is stopped
 * or is refused by a budget, and at a query that does not run again, as a notebook's "run all" does. Nothing is
 * added to the export log (a re-run would otherwise double the notebook it re-runs). Never throws for the user's
 * code: its failure is in the runs.
 */
export async function rerunNotebook(o: {
  store: ConversationStore;
  threadKey: string;
  run: (cell: RerunCell) => Promise<TurnResult>;
}): Promise<TurnResult> {
  const startedMs = Date.now();
  const { cells, stale } = cellsOf((await o.store.readExport(o.threadKey)).entries);
  const {
    runs,
    outcome,
    text: stoppedBy,
  } = await runInOrder(cells.slice(0, MAX_RERUN_CELLS), async (cell) => {
    const turn = await o.run(cell);
    // A query answered without a run (a refusal, an unreachable source) did not load its rows.
    return 'query' in cell && turn.outcome === 'answer' && turn.runs.length === 0
      ? queryFailed(cell.query, turn)
      : turn;
  });
  const lines = [`Re-ran ${runs.length} of ${cells.length} cells of this thread's notebook.`];
  if (cells.length === 0) lines[0] = "This thread's notebook has no code to re-run (it may have expired).";
  if (cells.length > MAX_RERUN_CELLS) lines.push(`Only the first ${MAX_RERUN_CELLS} cells are re-run.`);
  if (stale.length)
    lines.push(
      `Not queried again, loaded as saved when first asked (stale): ${stale.map((f) => `\`${f}\``).join(', ')}.`,
    );
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
  run: (cell: RerunCell) => Promise<TurnResult>;
}): Promise<{ turn: TurnResult; notes: string[] }> {
  await o.sandbox.recycle?.(o.threadKey);
  const notes = await o.restore();
  const turn = await rerunNotebook({ store: o.store, threadKey: o.threadKey, run: o.run });
  return { turn, notes };
}

/**
 * A re-run's reply is an error when a cell failed, a query did not run again or there was nothing to re-run: a
 * schedule counts it towards its failures in a row.
 */
export function rerunReply(turn: TurnResult, reply: Reply): Reply {
  if (turn.outcome === 'failed' || turn.runs.some((r) => r.result.status !== 'ok')) reply.kind = 'error';
  return reply;
}
