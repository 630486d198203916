import type { Logger } from '../../src/logger.js';
import type { DataSources, QueryResult, SourceScope } from '../../src/ports/data-sources.js';
import type { Sandbox } from '../../src/ports/sandbox.js';
import { Turn, type TurnRun } from '../../src/interpreter/turn.js';
import { loadQueryResult } from '../../src/interpreter/query/load-result.js';
import { runQueryStep } from '../../src/interpreter/query/query-step.js';
import { stats, time, type BenchStats } from './bench-stats.js';

/** The sandbox a thread of `bench sources` runs in (a real one: the command builds a Docker sandbox). */
export interface SourcesBenchThread {
  sandbox: Sandbox;
  /** The loading run's time limit, in ms (THREADLAB_SANDBOX_TIMEOUT_MS). */
  loadTimeoutMs: number;
  logger: Logger;
  /** The container runtime the sandbox runs under (`runc`, `runsc-ptrace`…), for the report. */
  runtime?: string;
}

/** The DataFrame every sample loads: the same name each time, so the kernel holds one copy. */
const FRAME = 'sales_rows';

/**
 * 100,000 rows into a DataFrame in a thread, through the query tool's own path: `runQueryStep` (the query, the CSV
 * into `/mnt/data`, the loading run) timed whole, then `loadQueryResult` alone on rows already fetched. The thread is
 * made ready first (its container, pandas imported) and one untimed sample warms it; before each sample the last
 * sample's CSV is deleted outside the timing, so the thread's files stay one result large however many samples.
 */
export async function benchIntoThread(o: {
  thread: SourcesBenchThread;
  sources: DataSources;
  source: string;
  sql: string;
  scope: SourceScope;
  samples: number;
  /** The rows the fetch rows fetched: what the load-alone samples load. */
  fetched: QueryResult;
}): Promise<{ queryAndLoad: BenchStats; load: BenchStats }> {
  const { sandbox, logger, loadTimeoutMs } = o.thread;
  const threadKey = `cli:bench:sources:thread-${process.pid}`;
  const turn = () => new Turn({ threadKey, logger: logger.child({ thread: threadKey }), timeoutMs: 120_000 });
  const expectLoaded = (run: TurnRun | undefined, what: string): void => {
    const stdout = run?.result.stdout ?? '';
    if (run?.result.status !== 'ok' || !stdout.includes(`${FRAME}: ${o.fetched.rows} rows`))
      throw new Error(`bench ${what} did not load ${o.fetched.rows} rows: ${run?.result.error?.value ?? stdout}`);
  };
  const queryAndLoad = async (): Promise<void> => {
    const t = turn();
    try {
      const step = await runQueryStep({
        turn: t,
        sandbox,
        sources: o.sources,
        scope: o.scope,
        round: 1,
        ask: { source: o.source, sql: o.sql, name: FRAME },
        loadTimeoutMs,
      });
      expectLoaded(step.run, `query and load (${step.failure?.message ?? 'no failure'})`);
    } finally {
      t.end();
    }
  };
  const loadAlone = async (): Promise<void> => {
    const t = turn();
    try {
      const ask = { source: o.source, sql: o.sql, name: FRAME };
      const loaded = await loadQueryResult({ turn: t, sandbox, ask, result: o.fetched, loadTimeoutMs });
      expectLoaded('run' in loaded ? loaded.run : undefined, 'load');
    } finally {
      t.end();
    }
  };
  const clean = async (): Promise<void> => {
    const code = "import glob, os\nfor p in glob.glob('/mnt/data/query_*.csv'):\n    os.remove(p)";
    const result = await sandbox.run(threadKey, { language: 'python', code, timeoutMs: loadTimeoutMs, internal: true });
    if (result.status !== 'ok') throw new Error(`bench could not clear the thread's files: ${result.error?.value}`);
  };
  try {
    await sandbox.prepare(threadKey);
    await queryAndLoad();
    const whole = stats(await time(o.samples, queryAndLoad, clean));
    const load = stats(await time(o.samples, loadAlone, clean));
    return { queryAndLoad: whole, load };
  } finally {
    await sandbox.reset(threadKey);
  }
}
