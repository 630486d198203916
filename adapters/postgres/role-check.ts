import pg from 'pg';
import type { SourceSettings } from '../../src/config/sources.js';
import { failureOf } from './failures.js';
import { connectionConfig } from './pool.js';

/** What `threadlab doctor` learns of one source: reachable, its server, and every way its role could write. */
export type SourceProbe =
  { ok: true; version: string; user: string; dangerous: string[]; writes: string[] } | { ok: false; message: string };

/**
 * The role's write paths, one row per finding (bounded: the first 20 tables), read in a READ ONLY transaction.
 * A failed `CREATE TEMP TABLE` would prove little: these read the role's attributes and privileges instead.
 */
const FINDINGS_SQL = `
WITH me AS (SELECT * FROM pg_catalog.pg_roles WHERE rolname = current_user)
SELECT 'danger' AS level, 'is a superuser' AS what FROM me WHERE rolsuper
UNION ALL SELECT 'danger', 'may run programs on the server (pg_execute_server_program)'
  WHERE pg_has_role(current_user, 'pg_execute_server_program', 'MEMBER') AND NOT (SELECT rolsuper FROM me)
UNION ALL SELECT 'danger', 'may write files on the server (pg_write_server_files)'
  WHERE pg_has_role(current_user, 'pg_write_server_files', 'MEMBER') AND NOT (SELECT rolsuper FROM me)
UNION ALL SELECT 'write', 'may create roles (rolcreaterole)' FROM me WHERE rolcreaterole AND NOT rolsuper
UNION ALL SELECT 'write', 'may create databases (rolcreatedb)' FROM me WHERE rolcreatedb AND NOT rolsuper
UNION ALL SELECT 'write', 'bypasses row-level security (rolbypassrls)' FROM me WHERE rolbypassrls AND NOT rolsuper
UNION ALL SELECT 'write', 'is a member of pg_write_all_data'
  WHERE pg_has_role(current_user, 'pg_write_all_data', 'MEMBER') AND NOT (SELECT rolsuper FROM me)
UNION ALL SELECT 'write', 'may create schemas or temporary tables in database ' || current_database()
  WHERE has_database_privilege(current_database(), 'CREATE, TEMP') AND NOT (SELECT rolsuper FROM me)
UNION ALL (SELECT 'write', 'may create objects in schema ' || nspname FROM pg_catalog.pg_namespace
  WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' AND has_schema_privilege(oid, 'CREATE')
    AND NOT (SELECT rolsuper FROM me) ORDER BY nspname LIMIT 20)
UNION ALL (SELECT 'write', 'may write table ' || c.oid::regclass::text FROM pg_catalog.pg_class c
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'p') AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
    AND has_table_privilege(c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE') AND NOT (SELECT rolsuper FROM me)
  ORDER BY 2 LIMIT 20)
UNION ALL SELECT 'write', 'starts read-write transactions by default (default_transaction_read_only is off)'
  WHERE NOT current_setting('default_transaction_read_only')::boolean`;

/** Connects once (no pool) and reads the role's findings; the connection closes whatever happens. */
export async function probeSource(settings: SourceSettings, secrets: readonly string[]): Promise<SourceProbe> {
  const started = Date.now();
  const client = new pg.Client({ ...connectionConfig(settings), statement_timeout: 10_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows: about } = await client.query<{ version: string; user: string }>(
      "SELECT current_setting('server_version') AS version, current_user AS user",
    );
    // A plain READ ONLY transaction, not the query frame: its SET LOCAL would hide the role's own default.
    await client.query('BEGIN TRANSACTION READ ONLY');
    const { rows } = await client.query<{ level: string; what: string }>(FINDINGS_SQL);
    await client.query('ROLLBACK');
    return {
      ok: true,
      version: about[0]?.version ?? 'unknown',
      user: about[0]?.user ?? 'unknown',
      dangerous: rows.filter((r) => r.level === 'danger').map((r) => r.what),
      writes: rows.filter((r) => r.level === 'write').map((r) => r.what),
    };
  } catch (err) {
    const f = failureOf(err, {
      source: settings.name,
      statementTimeoutMs: 10_000,
      ms: Date.now() - started,
      secrets,
    });
    return { ok: false, message: f.message };
  } finally {
    await client.end().catch(() => undefined);
  }
}
