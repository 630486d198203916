import type { QueryFailure } from '../../src/ports/data-sources.js';

/** Why the bot itself cancelled a query: its own deadline, or the request's Stop. */
export type CancelReason = 'timeout' | 'stopped';

const SETTING = 'THREADLAB_SOURCES_FILE';

/** Replaces every secret (passwords, URLs) in `text`; applied to every message, whatever its origin. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('[redacted]');
  return out;
}

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/** SQLSTATEs (https://www.postgresql.org/docs/current/errcodes-appendix.html) that mean "this would write or escape". */
const REFUSED = new Set([
  '25006', // read_only_sql_transaction: INSERT, UPDATE, DELETE, DDL, nextval(), lo_import… in a READ ONLY transaction
  '42501', // insufficient_privilege: the role may not (COPY … TO PROGRAM, SET ROLE to a role it is not in…)
  '25001', // active_sql_transaction: SET TRANSACTION READ WRITE after the transaction's first query
  '2D000', // invalid_transaction_termination: COMMIT inside DO or a procedure
  '0A000', // feature_not_supported: e.g. a data-modifying WITH below the top level
]);

/** Connection-level failures: the source is down, unknown, or refuses our credentials (class 08, 28, 3D, 53, 57P). */
const UNREACHABLE_CODES = /^(08|28|3D|53|57P0[1-3])/;
const NETWORK_ERRORS = /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ECONNRESET|EPIPE)$/;

interface PgLikeError {
  code?: string;
  message?: string;
}

/**
 * A driver or server error as the port's QueryFailure: plain words naming the source and the setting to check,
 * never the URL; the server's own message only for errors in the query (`sql`, `refused`), scrubbed anyway.
 */
export function failureOf(
  err: unknown,
  context: {
    source: string;
    statementTimeoutMs: number;
    cancelled?: CancelReason;
    ms: number;
    secrets: readonly string[];
  },
): QueryFailure {
  const { source, ms } = context;
  const e = (err ?? {}) as PgLikeError;
  const code = typeof e.code === 'string' ? e.code : '';
  const server = scrub(String(e.message ?? 'unknown error'), context.secrets);
  const failure = (kind: QueryFailure['kind'], message: string): QueryFailure => ({
    source,
    kind,
    message: scrub(message, context.secrets),
    ms,
  });
  if (context.cancelled === 'stopped')
    return failure('stopped', `The query on source "${source}" was stopped and cancelled on the server.`);
  if (code === '57014' || context.cancelled === 'timeout')
    return failure(
      'timeout',
      `The query on source "${source}" ran past its statement timeout (${seconds(context.statementTimeoutMs)}) and was cancelled on the server. Narrow it (filter, aggregate in SQL, LIMIT), or ask an admin to raise statementTimeoutMs for "${source}" in ${SETTING}.`,
    );
  if (code === '42601' && /multiple commands/.test(server))
    return failure(
      'refused',
      `Source "${source}" runs one statement per query; send one SELECT (no semicolon-separated statements).`,
    );
  if (REFUSED.has(code))
    return failure(
      'refused',
      `Source "${source}" is read-only and refused this: ${server}. Every query runs in a READ ONLY transaction that is rolled back; only reading works.`,
    );
  if (code === '28P01' || code === '28000')
    return failure(
      'unreachable',
      unreachable(
        source,
        'the server refused the login: check the password (passwordEnv or passwordFile) and the user',
      ),
    );
  if (code === '3D000')
    return failure('unreachable', unreachable(source, 'the database does not exist: check the url'));
  if (
    UNREACHABLE_CODES.test(code) ||
    NETWORK_ERRORS.test(code) ||
    /timeout exceeded when trying to connect|Connection terminated/i.test(server)
  )
    return failure('unreachable', unreachable(source, describeNetwork(code)));
  if (/^[0-9A-Z]{5}$/.test(code)) return failure('sql', `Source "${source}" could not run the query: ${server}`);
  // Anything else is the driver's (it may quote the connection): not shown, only named.
  return failure('unreachable', unreachable(source, 'the connection failed'));
}

function describeNetwork(code: string): string {
  if (code === 'ECONNREFUSED') return 'nothing answered at its host and port (connection refused)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'its host name did not resolve';
  if (/^53/.test(code)) return 'the server has no connection to spare';
  if (/^57P/.test(code)) return 'the server is shutting down or restarting';
  return 'no connection within the time allowed';
}

const unreachable = (source: string, why: string) =>
  `Source "${source}" is unreachable: ${why}. Check its entry in ${SETTING} and that the server is running.`;

/** A statement that returned no rows' description (SET, DO, CALL, DML without RETURNING…): rolled back, and said so. */
export const noRowsRefusal = (source: string, ms: number): QueryFailure => ({
  source,
  kind: 'refused',
  message: `Source "${source}" runs only queries that return rows (SELECT, WITH … SELECT, VALUES, SHOW, EXPLAIN); this statement returned none and was rolled back.`,
  ms,
});
