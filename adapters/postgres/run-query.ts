import type pg from 'pg';
import Cursor from 'pg-cursor';
import type { QueryOutcome, SourceLimits } from '../../src/ports/data-sources.js';
import { cancelBackend } from './cancel.js';
import { CsvWriter } from './csv-writer.js';
import { failureOf, noRowsRefusal, type CancelReason } from './failures.js';
import { beginSql, ROLLBACK } from './transaction.js';
import type { TypeNames } from './type-names.js';

/** Rows fetched per round trip from the cursor. */
export const BATCH_ROWS = 10_000;
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

interface FieldLike {
  name: string;
  dataTypeID: number;
}

type ReadResult = { rows: unknown[][]; fields: FieldLike[] };

function read(cursor: Cursor<unknown[]>, count: number): Promise<ReadResult> {
  return new Promise((resolve, reject) =>
    cursor.read(count, (err, rows, result) =>
      err ? reject(err) : resolve({ rows, fields: (result?.fields ?? []) as FieldLike[] }),
    ),
  );
}

/**
 * One query on a pooled connection: the read-only frame, the statement through a cursor in batches into CSV up to
 * the caps, then ROLLBACK whatever happened. A deadline (the statement timeout over the whole read) and the
 * request's signal cancel on the server. Resolves `release`'s argument: true when the connection must be dropped.
 */
export async function runQuery(o: RunQueryOptions): Promise<{ outcome: QueryOutcome; destroy: boolean }> {
  const { client, limits } = o;
  let cancelled: CancelReason | undefined;
  const pid = (client as unknown as { processID?: number }).processID;
  const cancel = (why: CancelReason) => {
    if (cancelled) return;
    cancelled = why;
    if (pid) void cancelBackend(o.connection, pid);
  };
  const onAbort = () => cancel('stopped');
  // A signal aborted already never fires 'abort': a Stop before the query began is a stop all the same.
  if (o.signal?.aborted) cancelled = 'stopped';
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const deadline = setTimeout(() => cancel('timeout'), limits.statementTimeoutMs);
  const elapsed = () => Date.now() - o.startedMs;
  let outcome: QueryOutcome;
  try {
    outcome = await inTransaction(o, () => cancelled);
  } catch (err) {
    outcome = { ok: false, ...failureOf(err, { ...o, ...limits, cancelled, ms: elapsed() }) };
  } finally {
    clearTimeout(deadline);
    o.signal?.removeEventListener('abort', onAbort);
  }
  const rolledBack = await rollback(client);
  return { outcome, destroy: !rolledBack };
}

async function inTransaction(o: RunQueryOptions, cancelled: () => CancelReason | undefined): Promise<QueryOutcome> {
  const { client, limits, source } = o;
  if (o.signal?.aborted) throw Object.assign(new Error('stopped'), { code: '57014' });
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
  const cursor = client.query(new Cursor<unknown[]>(o.sql, undefined, { rowMode: 'array' }));
  let csv: CsvWriter | undefined;
  let fields: FieldLike[] = [];
  for (;;) {
    const batch = await read(cursor, BATCH_ROWS);
    if (!csv) {
      fields = batch.fields;
      if (fields.length === 0) {
        await cursor.close();
        return { ok: false, ...noRowsRefusal(source, Date.now() - o.startedMs) };
      }
      csv = new CsvWriter(
        fields.map((f) => f.name),
        limits,
      );
    }
    let full = false;
    for (const row of batch.rows) {
      if (csv.add(row)) continue;
      full = true;
      break;
    }
    if (full || batch.rows.length < BATCH_ROWS || cancelled()) break;
  }
  await cursor.close();
  if (cancelled()) throw Object.assign(new Error('cancelled'), { code: '57014' });
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
