import type { DataSources, SourceScope } from '../../ports/data-sources.js';
import type { Sandbox } from '../../ports/sandbox.js';
import type { Logger } from '../../logger.js';
import { Turn, type TurnOptions, type TurnResult } from '../turn.js';
import { runQueryStep } from './query-step.js';
import type { SqlFence } from './sql-fence.js';

/** What a query sent to run as is needs: the port (unset: none configured), the sandbox and the turn's options. */
export interface DirectQueryOptions {
  sources: DataSources | undefined;
  sandbox: Sandbox;
  logger: Logger;
  threadKey: string;
  fence: SqlFence;
  /** A re-run's: the CSV the query first wrote, written again with the new rows. */
  file?: string;
  /** Time limit of the run that loads the result, in ms (THREADLAB_SANDBOX_TIMEOUT_MS). */
  loadTimeoutMs: number;
}

/** A direct turn that ran nothing, with a plain answer. */
const said = (text: string, startedMs: number): TurnResult => ({
  outcome: 'answer',
  text,
  runs: [],
  usage: { promptTokens: 0, completionTokens: 0 },
  durationMs: Date.now() - startedMs,
  direct: true,
});

/**
 * An sql fence sent to run as is (direct mode): the query runs through the port and its result lands in the thread as
 * a CSV and a DataFrame; the reply is the loading run (its preview) with the CSV attached. Failures are the reply's
 * plain words.
 */
export async function runDirectQuery(o: DirectQueryOptions, options: TurnOptions): Promise<TurnResult> {
  const startedMs = Date.now();
  const { fence } = o;
  const scope: SourceScope | undefined = options.scope;
  const available = o.sources && scope ? o.sources.list(scope) : [];
  if (!o.sources || !scope || available.length === 0)
    return said('No data source is available here: an admin declares them in `THREADLAB_SOURCES_FILE`.', startedMs);
  const names = available.map((s) => `\`${s.name}\``).join(', ');
  if (!fence.source)
    return said(
      `Name the source on the sql block's first line, for example \`-- source: ${available[0]!.name}\` (here: ${names}).`,
      startedMs,
    );
  if (!fence.sql) return said('The sql block has no query to run.', startedMs);
  const turn = new Turn({
    threadKey: o.threadKey,
    logger: o.logger.child({ thread: o.threadKey }),
    signal: options.signal,
    onProgress: options.onProgress,
  });
  try {
    const step = await runQueryStep({
      turn,
      sandbox: o.sandbox,
      sources: o.sources,
      scope,
      round: 1,
      ask: {
        source: fence.source,
        sql: fence.sql,
        ...(fence.name ? { name: fence.name } : {}),
        ...(o.file ? { file: o.file } : {}),
      },
      loadTimeoutMs: o.loadTimeoutMs,
      ...(options.budget ? { budget: options.budget } : {}),
    });
    if (!step.run) return said(step.failure?.message ?? step.text, startedMs);
    const cancelled = turn.stopReason() === 'cancelled';
    return {
      outcome: cancelled ? 'cancelled' : 'answer',
      text: cancelled ? 'Stopped at your request.' : '',
      runs: [step.run],
      usage: { promptTokens: 0, completionTokens: 0 },
      durationMs: Date.now() - startedMs,
      direct: true,
    };
  } finally {
    turn.end();
  }
}
