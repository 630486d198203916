import type { SourceColumn } from '../../ports/data-sources.js';

/** Rows of the DataFrame printed for the model after a query. */
export const PREVIEW_ROWS = 5;
/** Columns of those rows printed at most (pandas elides the middle ones). */
export const PREVIEW_COLUMNS = 20;
/** Characters of one printed cell at most. */
export const PREVIEW_CELL_CHARS = 40;
/** Lines of SQL quoted in the loading code's comment; the export's Markdown cell has all of it. */
const SQL_COMMENT_LINES = 12;

/** How a server type is read into pandas: a dtype, parsed as dates, or left to pandas. */
export function pandasReading(type: string): { dtype?: string; date?: true } {
  const t = type.toLowerCase().trim();
  if (/^(timestamp|date)\b/.test(t)) return { date: true };
  if (/^(smallint|integer|bigint|int2|int4|int8|int|serial|bigserial|smallserial)$/.test(t)) return { dtype: 'Int64' };
  if (/^(real|double precision|float4|float8|numeric|decimal)\b/.test(t)) return { dtype: 'float64' };
  if (/^(boolean|bool)$/.test(t)) return { dtype: 'boolean' };
  // Text keeps leading zeros and codes that look like numbers (zip codes, ids).
  if (/^(text|character|char|varchar|bpchar|uuid|name|citext)\b/.test(t)) return { dtype: 'string' };
  return {};
}

/** A Python string literal of `text` (JSON's escapes are Python's, for the characters a JSON string holds). */
const py = (text: string): string => JSON.stringify(text);

export interface LoadCodeOptions {
  /** The DataFrame's name (a checked identifier). */
  name: string;
  /** Path under `/mnt/data`. */
  file: string;
  columns: readonly SourceColumn[];
  source: string;
  sql: string;
}

/**
 * The Python that loads a query's CSV as a DataFrame with dtypes from the columns' server types (dates parsed), then
 * prints a bounded preview: shape, dtypes and the first {@link PREVIEW_ROWS} rows. The same code is the export's cell,
 * so the notebook loads the saved result without the database.
 */
export function loadCode(o: LoadCodeOptions): string {
  const dtypes: string[] = [];
  const dates: string[] = [];
  for (const column of o.columns) {
    const reading = pandasReading(column.type);
    if (reading.date) dates.push(py(column.name));
    else if (reading.dtype) dtypes.push(`${py(column.name)}: ${py(reading.dtype)}`);
  }
  const sqlLines = o.sql.trim().split('\n');
  const quoted = sqlLines.slice(0, SQL_COMMENT_LINES).map((l) => `#   ${l}`);
  if (sqlLines.length > SQL_COMMENT_LINES) quoted.push(`#   … (${sqlLines.length - SQL_COMMENT_LINES} more lines)`);
  const args = [
    py(`/mnt/data/${o.file}`),
    ...(dtypes.length ? [`dtype={${dtypes.join(', ')}}`] : []),
    ...(dates.length ? [`parse_dates=[${dates.join(', ')}]`] : []),
  ];
  return [
    `# The result of a query on the data source ${py(o.source)}, saved by Threadlab:`,
    ...quoted,
    'import pandas as pd',
    `${o.name} = pd.read_csv(${args.join(', ')})`,
    `with pd.option_context('display.max_columns', ${PREVIEW_COLUMNS}, 'display.width', 160, 'display.max_colwidth', ${PREVIEW_CELL_CHARS}):`,
    `    print(f"${o.name}: {${o.name}.shape[0]} rows x {${o.name}.shape[1]} columns")`,
    `    print(${o.name}.dtypes.head(${PREVIEW_COLUMNS}).to_string())`,
    `    print(${o.name}.head(${PREVIEW_ROWS}).to_string())`,
  ].join('\n');
}
