import type { SourceLimits } from '../../src/ports/data-sources.js';

/**
 * The frame of every query, sent as one simple-protocol message of our own fixed text (numbers only vary):
 * - READ ONLY transaction: INSERT/UPDATE/DELETE/DDL/nextval/lo_import fail with 25006 whatever the role may do;
 * - statement_timeout (the server cancels at the limit, 57014) and idle_in_transaction_session_timeout (a bot that
 *   vanishes between batches does not hold a snapshot open);
 * - default_transaction_read_only, so nothing started from here on this session is read-write either;
 * - client_connection_check_interval (PostgreSQL 14+): a query whose client went away is ended within a second;
 * - the final SELECT takes the transaction's snapshot, so a later `SET TRANSACTION READ WRITE` is refused (25001:
 *   "must be called before any query"), and tells whether the role is dangerous beyond reading (superuser, or may
 *   run programs or read and write files on the server).
 * The user's SQL follows as ONE statement through the extended protocol (stream-rows.ts: Parse/Bind/Execute), where the
 * server refuses several statements (postgres.c exec_parse_message: "cannot insert multiple commands into a prepared
 * statement", 42601), so `COMMIT; DELETE …` cannot end this transaction. ROLLBACK always ends it.
 */
export function beginSql(limits: SourceLimits, serverVersionNum: number): string {
  const timeout = Math.max(1, Math.floor(limits.statementTimeoutMs));
  return [
    'BEGIN TRANSACTION READ ONLY',
    `SET LOCAL statement_timeout = ${timeout}`,
    `SET LOCAL idle_in_transaction_session_timeout = ${Math.max(60_000, timeout)}`,
    'SET LOCAL default_transaction_read_only = on',
    ...(serverVersionNum >= 140000 ? ['SET LOCAL client_connection_check_interval = 1000'] : []),
    `SELECT r.rolsuper OR pg_has_role(current_user, 'pg_execute_server_program', 'MEMBER') OR pg_has_role(current_user, 'pg_write_server_files', 'MEMBER') AS dangerous FROM pg_catalog.pg_roles r WHERE r.rolname = current_user`,
  ].join(';\n');
}

export const ROLLBACK = 'ROLLBACK';
