import pg from 'pg';

/**
 * Cancels the statement running on backend `pid` from a separate connection as the same role (a role may cancel
 * its own backends: https://www.postgresql.org/docs/current/functions-admin.html, pg_cancel_backend). Bounded by
 * the connection timeout; a failure is swallowed: the query connection is then destroyed by the caller, and the
 * server ends the query within client_connection_check_interval.
 */
export async function cancelBackend(config: pg.ClientConfig, pid: number): Promise<boolean> {
  const client = new pg.Client(config);
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ cancelled: string }>('SELECT pg_cancel_backend($1) AS cancelled', [pid]);
    return rows[0]?.cancelled === 't' || (rows[0]?.cancelled as unknown) === true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
