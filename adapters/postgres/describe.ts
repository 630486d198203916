import type pg from 'pg';
import type { SourceTable } from '../../src/ports/data-sources.js';

/** Bounds of a source's description: what the model is shown of it. */
export const DESCRIBE_LIMITS = { maxTables: 200, maxColumns: 100 } as const;

/**
 * Tables, views and materialized views the role may SELECT from (has_table_privilege), outside the system schemas,
 * with their columns and the planner's row estimate (reltuples; -1 or 0 before ANALYZE is left out). One more table
 * and column than the bounds are fetched, to know when they cut.
 */
const TABLES_SQL = `
SELECT c.oid::int AS oid, n.nspname AS schema, c.relname AS name, c.reltuples::bigint AS estimate
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
  AND has_table_privilege(c.oid, 'SELECT')
ORDER BY n.nspname = 'public' DESC, n.nspname, c.relname
LIMIT $1`;

const COLUMNS_SQL = `
SELECT a.attrelid::int AS oid, a.attname AS name, pg_catalog.format_type(a.atttypid, a.atttypmod) AS type
FROM pg_catalog.pg_attribute a
WHERE a.attrelid = ANY($1::oid[]) AND a.attnum > 0 AND NOT a.attisdropped AND a.attnum <= $2
ORDER BY a.attrelid, a.attnum`;

/** The source's tables as the port describes them, bounded; `truncated` when a bound cut. */
export async function describeTables(client: pg.PoolClient): Promise<{ tables: SourceTable[]; truncated: boolean }> {
  const { maxTables, maxColumns } = DESCRIBE_LIMITS;
  const found = await client.query<{ oid: string; schema: string; name: string; estimate: string }>(TABLES_SQL, [
    maxTables + 1,
  ]);
  let truncated = found.rows.length > maxTables;
  const rows = found.rows.slice(0, maxTables);
  const columns = await client.query<{ oid: string; name: string; type: string }>(COLUMNS_SQL, [
    rows.map((r) => r.oid),
    maxColumns + 1,
  ]);
  const byTable = new Map<string, Array<{ name: string; type: string }>>();
  for (const c of columns.rows) {
    const list = byTable.get(c.oid) ?? [];
    if (list.length < maxColumns) list.push({ name: c.name, type: c.type });
    else truncated = true;
    byTable.set(c.oid, list);
  }
  const tables = rows.map((r): SourceTable => {
    const estimate = Number(r.estimate);
    return {
      name: r.schema === 'public' ? r.name : `${r.schema}.${r.name}`,
      columns: byTable.get(r.oid) ?? [],
      ...(estimate > 0 ? { estimatedRows: estimate } : {}),
    };
  });
  return { tables, truncated };
}
