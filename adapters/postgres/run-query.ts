import type pg from 'pg';
import type { QueryOutcome, SourceLimits } from '../../src/ports/data-sources.js';
import { cancelBackend } from './cancel.js';
import { CsvWriter } from './csv-writer.js';
import { failureOf, noRowsRefusal, type CancelReason } from './failures.js';
import { streamRows, type StreamField } from './stream-rows.js';
import { beginSql, ROLLBACK } from './transaction.js';
import type { TypeNames } from './type-names.js';

/** How long ROLLBACK may take before the connection is dropped instead. */
const ROLLBACK_TIMEOUT_MS = 5000;

export interface RunQueryOptions {
  source: string;
  sql: string;
  client: pg.PoolClient;
  /** For the cancelling connection (same role). */
  connection: pg.ClientConfig;
  limits: SourceLimits;
  serverVersionNum: number;
  types: TypeNames;
  secrets: readonly string[];
  signal?: AbortSignal;
  startedMs: number;
}

/**
 * One query on a pooled connection: the read-only frame, the statement streamed into CSV up to the caps (a cap
 * cancels the rest on the server), then ROLLBACK whatever happened. A deadline (the statement timeout over the
 * whole read) and the request's signal cancel on the server. `destroy`: the connection must not go back to the pool.
 */
export async function runQuery(o: RunQueryOptions): Promise<{ outcome: QueryOutcome; destroy: boolean }> {
  let cancelled: CancelReason | undefined;
  let cancelSent = false;
  const pid = (o.client as unknown as { processID?: number }).processID;
  const cancelOnServer = () => {
    if (cancelSent || !pid) return;
    cancelSent = true;
    void cancelBackend(o.connection, pid);
  };
  const cancel = (why: CancelReason) => {
    cancelled ??= why;
    cancelOnServer();
  };
  const onAbort = () => cancel('stopped');
  // A signal aborted already never fires 'abort': a Stop before the query began is a stop all the same.
  if (o.signal?.aborted) cancelled = 'stopped';
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const deadline = setTimeout(() => cancel('timeout'), o.limits.statementTimeoutMs);
  let outcome: QueryOutcome;
  try {
    outcome = await inTransaction(o, () => cancelled, cancelOnServer);
  } catch (err) {
    outcome = { ok: false, ...failureOf(err, { ...o, ...o.limits, cancelled, ms: Date.now() - o.startedMs }) };
  } finally {
    clearTimeout(deadline);
    o.signal?.removeEventListener('abort', onAbort);
  }
  const rolledBack = await rollback(o.client);
  return { outcome, destroy: !rolledBack };
}

const cancelledError = () => Object.assign(new Error('cancelled'), { code: '57014' });

async function inTransaction(
  o: RunQueryOptions,
  cancelled: () => CancelReason | undefined,
  cancelForCap: () => void,
): Promise<QueryOutcome> {
  const { client, limits, source } = o;
  if (cancelled()) throw cancelledError();
  const frame = (await client.query(beginSql(limits, o.serverVersionNum))) as unknown as pg.QueryResult[];
  const guard = frame[frame.length - 1]?.rows[0] as { dangerous?: string } | undefined;
  if (guard?.dangerous !== 'f')
    return {
      ok: false,
      source,
      kind: 'refused',
      ms: Date.now() - o.startedMs,
      message: `Source "${source}" connects as a role that is a superuser or may run programs or write files on the server, so Threadlab will not query it. Create a read-only role (docs/data-sources.md) and use it in THREADLAB_SOURCES_FILE.`,
    };
  let fields: StreamField[] = [];
  let csv: CsvWriter | undefined;
  const onFields = (found: StreamField[]) => {
    fields = found;
    csv ??= new CsvWriter(
      found.map((f) => f.name),
      limits,
    );
  };
  try {
    await streamRows({
      client,
      sql: o.sql,
      onFields,
      onRow: (row) => {
        if (csv!.add(row)) return true;
        cancelForCap();
        return false;
      },
    });
  } catch (err) {
    // The statement was cancelled because a cap cut it: the rows kept are the result.
    if (!(csv?.cut && !cancelled() && (err as { code?: string }).code === '57014')) throw err;
  }
  if (cancelled()) throw cancelledError();
  if (!csv) return { ok: false, ...noRowsRefusal(source, Date.now() - o.startedMs) };
  const names = await o.types.names(
    client,
    fields.map((f) => f.dataTypeID),
  );
  const body = csv.toBuffer();
  return {
    ok: true,
    source,
    columns: fields.map((f) => ({ name: f.name, type: names.get(f.dataTypeID) ?? 'unknown' })),
    csv: body,
    rows: csv.rows,
    bytes: body.length,
    ms: Date.now() - o.startedMs,
    ...(csv.cut ? { cut: csv.cut } : {}),
  };
}

/** ROLLBACK, bounded: an answer on this connection also proves its backend runs nothing any more. */
async function rollback(client: pg.PoolClient): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.query(ROLLBACK),
      new Promise(
        (_, reject) => (timer = setTimeout(() => reject(new Error('rollback timeout')), ROLLBACK_TIMEOUT_MS)),
      ),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
