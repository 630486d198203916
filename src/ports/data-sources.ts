/**
 * Read-only SQL data sources an admin declares (issue 38): the model lists them and runs one query at a time
 * through the bot, never from the sandbox. Implementations live at the edge (adapters/postgres); credentials never
 * cross this port: nothing here carries a URL, a password or a driver error's raw text.
 */

/** Where a query is asked from: the access lists decide which sources a place and a person may use. */
export interface SourceScope {
  platform: string;
  user: string;
  /** The channel or conversation, as the access lists name it. */
  place: string;
  /**
   * Every other id the place goes by (its workspace or guild, its thread), so a source's `allow` naming a
   * workspace matches a channel in it, as THREADLAB_ACCESS_PLACES does. Optional: `place` alone otherwise.
   */
  places?: string[];
  /** The user's roles the platform sent with the message (Discord roles), for `allow` lists that name them. */
  roles?: string[];
}

export interface SourceColumn {
  name: string;
  /** The server's type name (`integer`, `text`, `timestamp with time zone`…). */
  type: string;
}

export interface SourceTable {
  /** Schema-qualified where the schema is not the default (`public`). */
  name: string;
  columns: SourceColumn[];
  /** The planner's estimate, when the server has one; never counted. */
  estimatedRows?: number;
}

export interface SourceSummary {
  name: string;
  kind: 'postgres';
  /** The admin's one-line description of what the source holds, if given. */
  description?: string;
  limits: SourceLimits;
}

export interface SourceLimits {
  statementTimeoutMs: number;
  maxRows: number;
  maxBytes: number;
}

export interface SourceSchema extends SourceSummary {
  /** Bounded: at most a configured number of tables and columns per table; `truncated` says when cut. */
  tables: SourceTable[];
  truncated: boolean;
}

/** A query's rows, streamed with a cursor up to the caps. */
export interface QueryResult {
  source: string;
  columns: SourceColumn[];
  /** CSV (RFC 4180, header row first) of the rows kept: what goes into the thread's files. */
  csv: Buffer;
  rows: number;
  bytes: number;
  ms: number;
  /** Set when a cap cut the result: which one, so the reply can say so. */
  cut?: 'rows' | 'bytes';
}

/**
 * Why a query did not run or did not finish, as data for the model and the user (never an exception for these):
 * `refused` covers writes and anything the read-only transaction or the role refused; `timeout` a query cancelled
 * on the server at the statement timeout; `sql` an error in the query itself (the server's message, no URL);
 * `stopped` a query cancelled on the server because the request's signal was aborted (Stop).
 */
export interface QueryFailure {
  source: string;
  kind: 'refused' | 'timeout' | 'sql' | 'unknown_source' | 'not_allowed' | 'unreachable' | 'stopped';
  /** Plain words for the user and the model: names the source and the setting to check, never the URL. */
  message: string;
  ms: number;
}

export type QueryOutcome = ({ ok: true } & QueryResult) | ({ ok: false } & QueryFailure);

export interface QueryRequest {
  source: string;
  sql: string;
  scope: SourceScope;
  /** Stop: the query is cancelled on the server. */
  signal?: AbortSignal;
}

export interface DataSources {
  /** The sources `scope` may use (empty when none are configured or allowed). */
  list(scope: SourceScope): SourceSummary[];
  /** Tables and columns of one source `scope` may use; a failure comes back as QueryFailure. */
  describe(source: string, scope: SourceScope, signal?: AbortSignal): Promise<SourceSchema | QueryFailure>;
  query(request: QueryRequest): Promise<QueryOutcome>;
  close(): Promise<void>;
}
