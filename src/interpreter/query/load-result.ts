import type { QueryResult } from '../../ports/data-sources.js';
import type { Sandbox } from '../../ports/sandbox.js';
import { ThreadlabError } from '../../domain/errors.js';
import { formatBytes } from '../../domain/text/format.js';
import type { Turn, TurnRun } from '../turn.js';
import { loadCode } from './load-code.js';
import { frameName, isQueryFileName, nextQueryNumber, queryFileName } from './query-names.js';

/** What loading a query's rows into the thread needs: the turn, its sandbox, the rows and where they came from. */
export interface LoadResultOptions {
  turn: Turn;
  sandbox: Sandbox;
  /**
   * The source and SQL asked, the DataFrame's name as asked (checked: query-names.ts) and, for a re-run, the file the
   * query first wrote (rewritten with the new rows, so code reading it by path reads them too).
   */
  ask: { source: string; sql: string; name?: string; file?: string };
  result: QueryResult;
  /** Time limit of the loading run, in ms (capped by the turn's time left). */
  loadTimeoutMs: number;
}

/**
 * Puts a query's CSV into the thread's files as `query_<n>_<source>.csv` and loads it into the kernel as a
 * DataFrame: the loading run, with its query, or in plain words why the thread's files could not hold the rows (the
 * sandbox's policy refusal; anything else throws). The query tool, direct mode, a re-run and `bench sources` all
 * load a result this way.
 */
export async function loadQueryResult(o: LoadResultOptions): Promise<{ run: TurnRun } | { refused: string }> {
  const { turn, ask, result } = o;
  const again = ask.file && isQueryFileName(ask.file) ? ask.file : undefined;
  const n = again
    ? Number(again.split('_')[1])
    : nextQueryNumber((await o.sandbox.listFiles(turn.threadKey)).map((f) => f.path));
  const file = again ?? queryFileName(n, ask.source);
  const name = frameName(ask.name, n, ask.source);
  const saved = await o.sandbox.putFile(turn.threadKey, file, result.csv).catch((err: unknown) => {
    // A policy refusal (the file or the thread's data over its limit) is the model's to hear; anything else throws.
    if (err instanceof ThreadlabError && err.isPolicy && err.code !== 'cancelled') return err;
    throw err;
  });
  if (saved instanceof ThreadlabError) {
    return {
      refused:
        `The ${result.rows} rows (${formatBytes(result.bytes)}) could not be saved in the thread's files: ` +
        `${saved.message} Aggregate in SQL, or select fewer rows or columns.`,
    };
  }
  const code = loadCode({ name, file, columns: result.columns, source: ask.source, sql: ask.sql });
  const ran = await o.sandbox.run(turn.threadKey, {
    language: 'python',
    code,
    timeoutMs: Math.max(1_000, Math.min(o.loadTimeoutMs, turn.msLeft())),
    signal: turn.signal,
    internal: true,
  });
  const artifact = { path: saved.path, bytes: saved.bytes, mime: 'text/csv', change: 'created' as const };
  // The CSV is the query's output: the reply attaches it and verified answers read it back like a file a run wrote.
  ran.artifacts = [artifact, ...ran.artifacts.filter((a) => a.path !== saved.path)];
  turn.emit({ type: 'file', artifact });
  const cut = result.cut ? { cut: result.cut } : {};
  const query = {
    source: ask.source,
    sql: ask.sql,
    file,
    name,
    rows: result.rows,
    bytes: result.bytes,
    ms: result.ms,
    ...cut,
  };
  return { run: { language: 'python', code, result: ran, query } };
}
