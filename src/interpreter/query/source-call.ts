import type { ApprovalHook } from '../../ports/approval.js';
import type { TurnBudget } from '../../ports/budget.js';
import type { DataSources, SourceScope, SourceSummary } from '../../ports/data-sources.js';
import type { Sandbox } from '../../ports/sandbox.js';
import { notApprovedText } from '../not-approved.js';
import type { Turn, TurnRun } from '../turn.js';
import { listSourcesText } from './list-sources.js';
import { runQueryStep } from './query-step.js';
import type { SourceCall } from './source-tools.js';

/** The data sources a turn may query: the port, who asks and where, and what that scope may use (non-empty). */
export interface TurnSources {
  sources: DataSources;
  scope: SourceScope;
  available: SourceSummary[];
}

/** What a source call needs of its round. */
export interface SourceCallOptions {
  turn: Turn;
  sandbox: Sandbox;
  sources: TurnSources;
  round: number;
  /** Time limit of the run that loads a result into the kernel, in ms. */
  loadTimeoutMs: number;
  approve?: ApprovalHook;
  budget?: TurnBudget;
}

/** The SQL as a person approving it reads it: the source named on the first line, as the sql fence writes it. */
export const approvalSql = (source: string, sql: string): string => `-- source: ${source}\n${sql}`;

/**
 * Carries out one call to list_sources or query_source: the tool message's text, and the loading run when a query
 * returned rows. With approval on, the SQL is shown before it runs; `undefined` when the turn was stopped meanwhile.
 */
export async function runSourceCall(
  o: SourceCallOptions,
  call: SourceCall,
): Promise<{ text: string; run?: TurnRun } | undefined> {
  const { turn } = o;
  if (call.kind === 'invalid') return { text: call.error };
  if (call.kind === 'list') return { text: await listSourcesText(o.sources.sources, o.sources.scope, turn.signal) };
  if (o.approve) {
    const { approve } = o;
    const decision = await turn
      .paused(() => approve({ language: 'sql', code: approvalSql(call.source, call.sql), signal: turn.signal }))
      .catch((err: unknown) => {
        if (turn.stopReason() !== undefined) return undefined;
        throw err;
      });
    if (!decision || turn.stopReason() !== undefined) return undefined;
    if (decision.kind !== 'run') return { text: notApprovedText(decision) };
  }
  const step = await runQueryStep({
    turn,
    sandbox: o.sandbox,
    sources: o.sources.sources,
    scope: o.sources.scope,
    round: o.round,
    ask: call,
    loadTimeoutMs: o.loadTimeoutMs,
    ...(o.budget ? { budget: o.budget } : {}),
  });
  return { text: step.text, ...(step.run ? { run: step.run } : {}) };
}
