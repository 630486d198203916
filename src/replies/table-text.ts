import type { Reply, ReplyFile, ReplyTable } from '../domain/reply.js';
import { formatCount } from '../domain/text/format.js';
import { codeBlock } from './run-output.js';
import { formatTable } from './tables.js';

/** What a surface shows of a table: its first `rows` rows and first `columns` columns. */
export interface ShownPart {
  rows: number;
  columns: number;
}

/** Whether a surface showing `shown` leaves part of the table out. */
export function isCut(table: ReplyTable, shown: ShownPart): boolean {
  return shown.rows < table.totalRows || shown.columns < table.totalColumns;
}

/**
 * The line under a table: its size, what is shown when not all of it, and where every row is. `csvName` is the
 * attached CSV (the sandbox's, or the surface's own when it cut a whole table).
 */
export function tableCaption(table: ReplyTable, shown: ShownPart, csvName = table.csvName): string {
  const size = `Table ${table.number}: ${formatCount(table.totalRows)} row${table.totalRows === 1 ? '' : 's'} × ${formatCount(table.totalColumns)} column${table.totalColumns === 1 ? '' : 's'}`;
  if (!isCut(table, shown)) return `${size}.`;
  const parts: string[] = [];
  if (shown.rows < table.totalRows) parts.push(`the first ${formatCount(shown.rows)} rows`);
  if (shown.columns < table.totalColumns) parts.push(`the first ${formatCount(shown.columns)} columns`);
  const showing = `${size}, showing ${parts.join(' and ')}`;
  if (!csvName) return `${showing}. ${table.csvMissing ?? 'The full table could not be attached.'}`;
  const csvRows = table.whole ? table.rows.length : (table.csvRows ?? table.totalRows);
  if (csvRows < table.totalRows)
    return `${showing}; \`${csvName}\` holds the first ${formatCount(csvRows)} rows (the file size limit).`;
  return `${showing}; every row is in \`${csvName}\`.`;
}

/** A CSV field: quoted when it holds a comma, quote or line break (RFC 4180). */
function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Name of the CSV a surface attaches for a whole table it cut. */
export function tableCsvName(table: ReplyTable): string {
  return table.csvFileName ?? `table-${table.number}.csv`;
}

/** The rows of a whole table as a CSV file, for a surface that shows fewer of them. */
export function tableCsvFile(table: ReplyTable, name = tableCsvName(table)): ReplyFile {
  const lines = [table.columns, ...table.rows].map((r) => r.map(csvField).join(','));
  return {
    name,
    mime: 'text/csv',
    data: Buffer.from(`${lines.join('\r\n')}\r\n`, 'utf8'),
    description: `table ${table.number}, every row`,
  };
}

export interface MonospaceOptions {
  /** The laid-out table is at most this long, in characters. */
  maxChars: number;
  /** At most this many rows. @defaultValue every row the table carries */
  maxRows?: number;
  /** Longer cells are cut with "…". @defaultValue 40 */
  maxCellChars?: number;
}

/**
 * Lays a table out as aligned monospace text that fits `maxChars`: as many of its first rows as fit (at least
 * the header). Columns past what fits one line of 120 characters are left out, never wrapped.
 */
export function monospaceTable(table: ReplyTable, options: MonospaceOptions): { text: string; shown: ShownPart } {
  const maxCell = options.maxCellChars ?? 40;
  let columns = table.columns.length;
  const layout = (rows: number, cols: number) =>
    formatTable(
      { columns: table.columns.slice(0, cols), rows: table.rows.slice(0, rows).map((r) => r.slice(0, cols)) },
      { maxCellChars: maxCell },
    );
  // Columns: as many as fit a readable line with the first rows.
  while (columns > 1 && layout(Math.min(10, table.rows.length), columns).split('\n')[0]!.length > 120) columns -= 1;
  let lo = 0;
  let hi = Math.min(table.rows.length, options.maxRows ?? table.rows.length);
  if (layout(hi, columns).length > options.maxChars) {
    // Binary search for the most rows that fit.
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (layout(mid, columns).length <= options.maxChars) lo = mid;
      else hi = mid - 1;
    }
  } else lo = hi;
  const shownColumns = columns === table.columns.length ? table.totalColumns : columns;
  return { text: layout(lo, columns), shown: { rows: lo, columns: shownColumns } };
}

/** A reply's text with its tables as monospace blocks and captions, for surfaces that draw no tables (the CLI). */
export function replyTextWithTables(reply: Pick<Reply, 'text' | 'tables'>): string {
  const parts = reply.text ? [reply.text] : [];
  for (const table of reply.tables ?? []) {
    const { text, shown } = monospaceTable(table, { maxChars: 100_000 });
    parts.push(`${codeBlock(text)}\n${tableCaption(table, shown)}`);
  }
  return parts.join('\n\n');
}
