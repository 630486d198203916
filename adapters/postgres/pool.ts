import pg from 'pg';
import type { SourceSettings } from '../../src/config/sources.js';

/** Every value stays the server's text (what the CSV carries): no Date, number or JSON parsing on the way. */
export const RAW_TEXT: pg.CustomTypesConfig = { getTypeParser: () => (value: string) => value };

/** How long a connection may take to open, and a query may wait for a pooled one. @defaultValue 10000 */
export const CONNECT_TIMEOUT_MS = 10_000;

/**
 * The connection settings of one source, in memory only. The password joins the URL here: pg parses a
 * connectionString over the explicit fields (pg/lib/connection-parameters.js), so a separate `password` is lost.
 */
export function connectionConfig(settings: SourceSettings): pg.ClientConfig {
  const url = new URL(settings.connection.connectionString);
  if (settings.connection.password) url.password = encodeURIComponent(settings.connection.password);
  return {
    connectionString: url.toString(),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: 'threadlab',
    types: RAW_TEXT,
  };
}

/**
 * A bounded pool per source: at most `maxConnections` connections, idle ones closed after 30 s, and a wait for a
 * connection bounded by CONNECT_TIMEOUT_MS (pg-pool's connectionTimeoutMillis covers the wait in its queue too).
 * An idle connection's error (the server restarted) is dropped with the connection instead of crashing the bot.
 */
export function createPool(settings: SourceSettings): pg.Pool {
  const pool = new pg.Pool({ ...connectionConfig(settings), max: settings.maxConnections, idleTimeoutMillis: 30_000 });
  pool.on('error', () => undefined);
  return pool;
}
