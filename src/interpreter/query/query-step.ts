import type { DataSources, QueryFailure, SourceScope } from '../../ports/data-sources.js';
import type { TurnBudget } from '../../ports/budget.js';
import type { Sandbox } from '../../ports/sandbox.js';
import { formatBytes, formatDuration } from '../../domain/text/format.js';
import { heldWork } from '../held-run.js';
import { formatToolResult } from '../tool-result.js';
import type { Turn, TurnRun } from '../turn.js';
import { loadQueryResult } from './load-result.js';

/** Statement timeout assumed for the budget's hold when the source is not listed for the scope (it will not run). */
const DEFAULT_STATEMENT_MS = 30_000;
/** Characters of the loading run's output (the preview) the model is shown. */
const PREVIEW_CHARS = 4_000;

/** One query the model (or a person, in direct mode) asked for. */
export interface QueryAsk {
  source: string;
  sql: string;
  /** The DataFrame's name as asked (checked: query-names.ts). */
  name?: string;
  /** A re-run's: the CSV the query first wrote, written again (else the thread's next query file). */
  file?: string;
}

export interface QueryStepOptions {
  turn: Turn;
  sandbox: Sandbox;
  sources: DataSources;
  scope: SourceScope;
  round: number;
  ask: QueryAsk;
  /** The daily budgets: the query's statement timeout and the loading run's limit are held before it runs. */
  budget?: TurnBudget;
  /** Time limit of the run that loads the CSV into the kernel, in ms. */
  loadTimeoutMs: number;
}

/** What a query step did: the loading run (with its query) when rows came back, and the text for the model. */
export interface QueryStep {
  run?: TurnRun;
  /** The tool result: the DataFrame's name and preview, or why not, in plain words. */
  text: string;
  failure?: Pick<QueryFailure, 'kind' | 'message'>;
}

/**
 * Runs one query through the port (never from the sandbox), puts its CSV into the thread's files and loads it into the
 * kernel as a DataFrame. Query time and the loading run count against the run-time budget. A failure (refused, timeout,
 * unknown source, a spent budget) is data: the step's text says it, nothing throws for it.
 */
export async function runQueryStep(o: QueryStepOptions): Promise<QueryStep> {
  const { turn, ask } = o;
  turn.emit({ type: 'query', round: o.round, source: ask.source, sql: ask.sql });
  const limits = o.sources.list(o.scope).find((s) => s.name === ask.source)?.limits;
  const holdMs = (limits?.statementTimeoutMs ?? DEFAULT_STATEMENT_MS) + o.loadTimeoutMs;
  const done = await heldWork(
    o.budget,
    holdMs,
    () => queryAndLoad(o),
    (step) => step.spentMs,
  );
  if ('refused' in done) {
    const message = `Not run: ${done.refused}`;
    turn.emit({ type: 'query_finished', source: ask.source, outcome: { ok: false, kind: 'budget', message, ms: 0 } });
    return { text: `[Threadlab] ${message}`, failure: { kind: 'refused', message } };
  }
  return done.step;
}

async function queryAndLoad(o: QueryStepOptions): Promise<{ step: QueryStep; spentMs: number }> {
  const { turn, ask } = o;
  const outcome = await o.sources.query({ source: ask.source, sql: ask.sql, scope: o.scope, signal: turn.signal });
  if (!outcome.ok) {
    turn.emit({
      type: 'query_finished',
      source: ask.source,
      outcome: { ok: false, kind: outcome.kind, message: outcome.message, ms: outcome.ms },
    });
    const text = `Query on "${ask.source}" did not run to completion (${outcome.kind}): ${outcome.message}`;
    return { step: { text, failure: { kind: outcome.kind, message: outcome.message } }, spentMs: outcome.ms };
  }
  const loaded = await loadQueryResult({
    turn,
    sandbox: o.sandbox,
    ask,
    result: outcome,
    loadTimeoutMs: o.loadTimeoutMs,
  });
  if ('refused' in loaded) {
    const message = loaded.refused;
    turn.emit({
      type: 'query_finished',
      source: ask.source,
      outcome: { ok: false, kind: 'too_large', message, ms: outcome.ms },
    });
    return {
      step: { text: `Query on "${ask.source}": ${message}`, failure: { kind: 'refused', message } },
      spentMs: outcome.ms,
    };
  }
  const { run } = loaded;
  const { name, file, cut } = run.query!;
  turn.emit({
    type: 'query_finished',
    source: ask.source,
    outcome: {
      ok: true,
      rows: outcome.rows,
      bytes: outcome.bytes,
      ms: outcome.ms,
      name,
      file,
      ...(cut ? { cut } : {}),
    },
  });
  return { step: { run, text: queryResultText(run) }, spentMs: outcome.ms + run.result.durationMs };
}

/** The tool result of a query that returned rows: what it was, where the rows are, and the loading run's preview. */
export function queryResultText(run: TurnRun): string {
  const q = run.query!;
  const cut = q.cut
    ? ` The result was cut at the source's ${q.cut === 'rows' ? 'row' : 'byte'} cap: it is not every row the query matches; aggregate in SQL or add a WHERE.`
    : '';
  const head =
    `Query on "${q.source}": ${q.rows} rows (${formatBytes(q.bytes)}) in ${formatDuration(q.ms)}.${cut} ` +
    `Saved as /mnt/data/${q.file}; ` +
    (run.result.status === 'ok'
      ? `loaded in the Python session as the DataFrame \`${q.name}\`.`
      : `loading it as \`${q.name}\` failed (below): read the CSV yourself with run_code.`);
  return `${head}\n${formatToolResult(run.result, { streamChars: PREVIEW_CHARS })}`;
}
