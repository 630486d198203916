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
  const texts: number[] = [];
  for (const [i, column] of o.columns.entries()) {
    const reading = pandasReading(column.type);
    if (reading.date) dates.push(py(column.name));
    else if (reading.dtype) dtypes.push(`${py(column.name)}: ${py(reading.dtype)}`);
    if (reading.dtype === 'string') texts.push(i);
  }
  const sqlLines = o.sql.trim().split('\n');
  const quoted = sqlLines.slice(0, SQL_COMMENT_LINES).map((l) => `#   ${l}`);
  if (sqlLines.length > SQL_COMMENT_LINES) quoted.push(`#   … (${sqlLines.length - SQL_COMMENT_LINES} more lines)`);
  const args = [
    py(`/mnt/data/${o.file}`),
    ...(dtypes.length ? [`dtype={${dtypes.join(', ')}}`] : []),
    ...(dates.length ? [`parse_dates=[${dates.join(', ')}]`] : []),
    // A one-column result's NULL is an empty line: kept as a row, not skipped.
    'skip_blank_lines=False',
  ];
  return [
    `# The result of a query on the data source ${py(o.source)}, saved by Threadlab:`,
    ...quoted,
    'import pandas as pd',
    `${o.name} = pd.read_csv(${args.join(', ')})`,
    ...emptyTextCode(o.name, `/mnt/data/${o.file}`, texts),
    `with pd.option_context('display.max_columns', ${PREVIEW_COLUMNS}, 'display.width', 160, 'display.max_colwidth', ${PREVIEW_CELL_CHARS}):`,
    `    print(f"${o.name}: {${o.name}.shape[0]} rows x {${o.name}.shape[1]} columns")`,
    `    print(${o.name}.dtypes.head(${PREVIEW_COLUMNS}).to_string())`,
    `    print(${o.name}.head(${PREVIEW_ROWS}).to_string())`,
  ].join('\n');
}

/**
 * Python that gives back the empty strings of text columns (by position), which pandas reads as missing like NULL:
 * the CSV writes NULL as an empty field and an empty string as `""` (adapters/postgres/csv-writer.ts), and Python
 * 3.12+'s csv module reads them apart with `csv.QUOTE_NOTNULL` ("an empty (unquoted) field is None";
 * https://docs.python.org/3/library/csv.html#csv.QUOTE_NOTNULL). It reads the file again only when it holds a `""`
 * at all, and does nothing on an older Python (the notebook still runs; both are then missing).
 */
function emptyTextCode(name: string, path: string, texts: readonly number[]): string[] {
  if (texts.length === 0) return [];
  return [
    "# Text columns keep '' apart from NULL (missing): pandas reads both as missing, Python's csv module does not.",
    'import csv',
    `with open(${py(path)}, newline='', encoding='utf-8') as _f:`,
    "    _seen, _last = False, ''",
    "    for _chunk in iter(lambda: _f.read(1 << 20), ''):",
    `        _seen, _last = _seen or '""' in _last + _chunk, _chunk[-1:]`,
    "    if _seen and hasattr(csv, 'QUOTE_NOTNULL'):",
    '        _f.seek(0)',
    '        _rows = csv.reader(_f, quoting=csv.QUOTE_NOTNULL)',
    '        next(_rows)',
    '        for _i, _row in enumerate(_rows):',
    `            for _j in (${texts.join(', ')},):`,
    "                if _j < len(_row) and _row[_j] == '':",
    `                    ${name}.iat[_i, _j] = ''`,
  ];
}
