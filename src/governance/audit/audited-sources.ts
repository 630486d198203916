import type { DataSources, QueryOutcome, QueryRequest } from '../../ports/data-sources.js';
import { commonFields } from './audit-common.js';
import type { AuditLog } from './audit-log.js';
import { AUDIT_MAX_SQL_CHARS, boundString, sha256Hex, type AuditQueryRecord } from './audit-record.js';
import { currentAuditScope } from './audit-scope.js';

/**
 * DataSources that write one audit line per query, whatever its end (rows, a failure as data, or the edge throwing):
 * who and which thread from the job's audit scope (else the request's scope), the source, the SQL bounded, rows,
 * bytes, milliseconds and the outcome. The port carries no connection detail, so neither does the line.
 */
export function auditedSources(inner: DataSources, audit: AuditLog): DataSources {
  return {
    list: (scope) => inner.list(scope),
    describe: (source, scope, signal) => inner.describe(source, scope, signal),
    async query(request) {
      const startedMs = Date.now();
      let outcome: QueryOutcome | undefined;
      try {
        outcome = await inner.query(request);
        return outcome;
      } finally {
        audit.write(queryRecord(request, outcome, Date.now() - startedMs));
      }
    },
    close: () => inner.close(),
  };
}

/** The `query` line of one query; `outcome` undefined when the edge threw (`failed`). */
export function queryRecord(
  request: QueryRequest,
  outcome: QueryOutcome | undefined,
  wallMs: number,
): AuditQueryRecord {
  const thread = currentAuditScope()?.thread ?? null;
  const { sql } = request;
  return {
    ...commonFields(thread, request.scope.user),
    kind: 'query',
    source: boundString(request.source),
    sql: sql.length <= AUDIT_MAX_SQL_CHARS ? sql : `${sql.slice(0, AUDIT_MAX_SQL_CHARS - 1)}…`,
    sqlSha256: sha256Hex(sql),
    sqlChars: sql.length,
    outcome: outcome ? (outcome.ok ? 'ok' : outcome.kind) : 'failed',
    rows: outcome?.ok ? outcome.rows : 0,
    bytes: outcome?.ok ? outcome.bytes : 0,
    durationMs: outcome?.ms ?? wallMs,
    cut: outcome?.ok && outcome.cut ? outcome.cut : null,
  };
}
