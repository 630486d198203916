import type { ToolCall, ToolSpec } from '../../ports/llm-client.js';
import type { SourceSummary } from '../../ports/data-sources.js';
import { toolNameOf } from '../tool-aliases.js';

export const LIST_SOURCES_TOOL = 'list_sources';
export const QUERY_SOURCE_TOOL = 'query_source';

/** Longest SQL a call may carry, in characters: a query is read by a person approving it, and audited. */
export const MAX_SQL_CHARS = 20_000;

/**
 * Names models give these tools beside ours (SQL agents' `sql`, `run_sql`, `query`…), read as ours and sent back
 * under our names.
 */
const QUERY_NAMES = new Set([QUERY_SOURCE_TOOL, 'sql', 'run_sql', 'query', 'execute_sql', 'sql_query', 'run_query']);
const LIST_NAMES = new Set([LIST_SOURCES_TOOL, 'list_tables', 'describe_sources', 'list_data_sources', 'get_schema']);
/** Keys under which models put the SQL, and the source, in the order they are looked for. */
const SQL_KEYS = ['sql', 'query', 'statement', 'code'] as const;
const SOURCE_KEYS = ['source', 'database', 'db', 'connection', 'datasource'] as const;

/** The two tools, offered only when the turn's scope may use at least one source. */
export function sourceToolSpecs(sources: readonly SourceSummary[]): ToolSpec[] {
  const names = sources.map((s) => s.name);
  return [
    {
      name: LIST_SOURCES_TOOL,
      description:
        'List the SQL data sources this thread may query, with their tables, columns and types, and their limits.',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
    },
    {
      name: QUERY_SOURCE_TOOL,
      description:
        'Run one read-only SQL query on a data source (never from code: the sandbox has no database access). The ' +
        'rows are saved as a CSV in /mnt/data and loaded in the Python session as a pandas DataFrame; the result names it and shows its first rows. Aggregate in SQL when the table is large; then analyse the DataFrame with run_code.',
      parameters: {
        type: 'object',
        properties: {
          source: { type: 'string', enum: names, description: names.join(', ') },
          sql: { type: 'string', description: 'One SELECT (or WITH … SELECT) statement.' },
          name: { type: 'string', description: 'Optional Python name for the DataFrame, e.g. revenue_by_region.' },
        },
        required: ['source', 'sql'],
        additionalProperties: false,
      },
    },
  ];
}

/** A call to one of the source tools, read; `invalid` carries the words the model gets back. */
export type SourceCall =
  { kind: 'list' } | { kind: 'query'; source: string; sql: string; name?: string } | { kind: 'invalid'; error: string };

const pick = (args: Record<string, unknown>, keys: readonly string[]): string | undefined => {
  for (const k of keys)
    if (typeof args[k] === 'string' && (args[k] as string).trim()) return (args[k] as string).trim();
  return undefined;
};

/**
 * Reads a call as a source tool's, or returns undefined when it names another tool (run_code and its aliases). With
 * one source, a query that names none is for that one.
 */
export function readSourceCall(
  call: Pick<ToolCall, 'name' | 'arguments'>,
  sources: readonly string[],
): SourceCall | undefined {
  const name = toolNameOf(call.name);
  if (LIST_NAMES.has(name)) return { kind: 'list' };
  if (!QUERY_NAMES.has(name)) return undefined;
  let args: Record<string, unknown>;
  try {
    const parsed: unknown = call.arguments.trim() ? JSON.parse(call.arguments) : {};
    args = typeof parsed === 'string' ? { sql: parsed } : (parsed as Record<string, unknown>);
    if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new Error('not an object');
  } catch {
    // Raw SQL where JSON belongs.
    args = { sql: call.arguments };
  }
  const sql = pick(args, SQL_KEYS);
  const source = pick(args, SOURCE_KEYS) ?? (sources.length === 1 ? sources[0] : undefined);
  const example = `{"source": ${sources.map((s) => `"${s}"`).join(' | ') || '"name"'}, "sql": "SELECT …"}`;
  if (!sql)
    return {
      kind: 'invalid',
      error: `Error: ${QUERY_SOURCE_TOOL} needs the SQL to run. Nothing ran. Expected ${example}.`,
    };
  if (!source)
    return {
      kind: 'invalid',
      error: `Error: ${QUERY_SOURCE_TOOL} needs the source to query. Nothing ran. Expected ${example}.`,
    };
  if (sql.length > MAX_SQL_CHARS)
    return {
      kind: 'invalid',
      error: `Error: the SQL is ${sql.length} characters, over the ${MAX_SQL_CHARS} allowed. Nothing ran. Write a shorter query.`,
    };
  const wanted = typeof args.name === 'string' ? args.name.trim() : undefined;
  return { kind: 'query', source, sql, ...(wanted ? { name: wanted } : {}) };
}

/** The call under our tool's name with its arguments as we read them: what goes back to the server in the history. */
export function canonicalSourceCall(call: ToolCall, read: SourceCall): ToolCall {
  if (read.kind === 'list') return { ...call, name: LIST_SOURCES_TOOL, arguments: '{}' };
  if (read.kind === 'invalid') return call;
  const { source, sql, name } = read;
  return { ...call, name: QUERY_SOURCE_TOOL, arguments: JSON.stringify({ source, sql, ...(name ? { name } : {}) }) };
}
