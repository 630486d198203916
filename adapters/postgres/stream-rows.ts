import pg from 'pg';

/** A result column as the server describes it (RowDescription). */
export interface StreamField {
  name: string;
  dataTypeID: number;
}

export interface StreamRowsOptions {
  client: pg.PoolClient;
  sql: string;
  /** The columns, once known: before the first row, or at the end for a result without rows. Not called for a statement that returns none (SET, DO…). */
  onFields: (fields: StreamField[]) => void;
  /** One row as the server's text; false once no more are wanted (a cap): later rows are dropped. */
  onRow: (values: unknown[]) => boolean;
}

/**
 * Runs ONE statement through the extended protocol (Parse/Bind/Execute: the server refuses several statements in
 * one Parse, postgres.c exec_parse_message, "cannot insert multiple commands into a prepared statement") and hands
 * each row to `onRow` as it arrives, without keeping it: pg does not accumulate rows when a 'row' listener is there
 * (pg/lib/query.js handleRowDescription). A caller that wants no more rows cancels the statement on the server.
 *
 * Why not a cursor (pg-cursor's Execute with a row count): PostgreSQL runs a portal executed with a row limit
 * without parallel workers (PortalRun's run_once is false unless Execute asks for all rows; "When Can Parallel Query
 * Be Used?" in the manual: no parallel plan where execution may be suspended), which made a 1,000,000-row aggregate
 * 1.9× slower than psql here. Asking for all rows and reading them as a stream keeps memory bounded and the plan
 * parallel.
 */
export function streamRows(o: StreamRowsOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    let described = false;
    let wanted = true;
    const describe = (fields: StreamField[] | undefined) => {
      if (described || !fields || fields.length === 0) return;
      described = true;
      o.onFields(fields);
    };
    // queryMode 'extended' forces Parse/Bind/Execute without parameters (pg/lib/query.js requiresPreparation).
    const query = new pg.Query({ text: o.sql, rowMode: 'array', queryMode: 'extended' } as pg.QueryConfig);
    query.on('row', (row: unknown, result?: { fields?: StreamField[] }) => {
      describe(result?.fields);
      if (wanted) wanted = o.onRow(row as unknown[]);
    });
    query.on('end', (result: { fields?: StreamField[] }) => {
      describe(result.fields);
      resolve();
    });
    query.on('error', reject);
    o.client.query(query);
  });
}
