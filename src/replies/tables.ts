import type { Display } from '../domain/execution.js';

export type Cell = string | number | boolean | null | undefined;

export interface TableData {
  columns: string[];
  rows: Cell[][];
}

export interface FormatTableOptions {
  /** Longer cells are cut with "…". @defaultValue 40 */
  maxCellChars?: number;
}

/**
 * Lays a small table out as monospace text: columns padded to their widest cell, numbers right-aligned,
 * a rule under the header. Callers wrap it in a code block.
 */
export function formatTable(table: TableData, options: FormatTableOptions = {}): string {
  const maxCell = options.maxCellChars ?? 40;
  const width = Math.max(table.columns.length, ...table.rows.map((r) => r.length));
  const cellText = (c: Cell): string => {
    const s = c === null || c === undefined ? '' : String(c).replace(/\s+/g, ' ');
    return s.length > maxCell ? `${s.slice(0, maxCell - 1)}…` : s;
  };
  const header = Array.from({ length: width }, (_, i) => cellText(table.columns[i]));
  const body = table.rows.map((r) => Array.from({ length: width }, (_, i) => cellText(r[i])));
  const numeric = Array.from(
    { length: width },
    (_, i) => body.length > 0 && body.every((r) => r[i] === '' || isNumeric(r[i] ?? '')),
  );
  const widths = Array.from({ length: width }, (_, i) => Math.max(header[i]!.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

function isNumeric(s: string): boolean {
  return /^[-+]?(\d[\d,_]*)?(\.\d+)?([eE][-+]?\d+)?%?$/.test(s) && /\d/.test(s);
}

/** Reads the first `<table>` of an HTML fragment (pandas `to_html` shape) into columns and rows. */
export function parseHtmlTable(html: string): TableData | undefined {
  const table = /<table[\s\S]*?<\/table>/i.exec(html)?.[0];
  if (!table) return undefined;
  const rows = [...table.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/gi)].map((m) =>
    [...(m[1] ?? '').matchAll(/<t([hd])[^>]*>([\s\S]*?)<\/t[hd]>/gi)].map((c) => ({
      header: c[1]?.toLowerCase() === 'h',
      text: decodeEntities((c[2] ?? '').replace(/<[^>]+>/g, '')).trim(),
    })),
  );
  const headerRows = rows.filter((r) => r.length > 0 && r.every((c) => c.header));
  const dataRows = rows.filter((r) => r.some((c) => !c.header));
  const columns = headerRows[0]?.map((c) => c.text) ?? [];
  return { columns, rows: dataRows.map((r) => r.map((c) => c.text)) };
}

function decodeEntities(s: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  return s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (all, e: string) => {
    if (e[0] === '#')
      return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    return named[e.toLowerCase()] ?? all;
  });
}

/** A table a run displayed (a pandas DataFrame or any HTML table), as text for chat. */
export interface TableDisplay {
  /** Monospace text of the table: pandas' own layout where it gave one. */
  text: string;
  /** Total rows and columns, when known (pandas prints "[1000 rows x 5 columns]" for long frames). */
  rows?: number;
  columns?: number;
  /** Whether `text` shows only part of the rows or columns. */
  abbreviated: boolean;
}

/** Reads a table display, or undefined when the display is not a table. */
export function readTableDisplay(display: Display): TableDisplay | undefined {
  const html = display.data['text/html'];
  if (!html || !/<table/i.test(html)) return undefined;
  const plain = display.data['text/plain'];
  const shape = /\[(\d+) rows x (\d+) columns\]\s*$/.exec(plain ?? '');
  if (plain) {
    // pandas prints the shape line exactly when it left rows or columns out (display.show_dimensions='truncate').
    const abbreviated = Boolean(shape);
    return {
      text: plain.trimEnd(),
      rows: shape ? Number(shape[1]) : undefined,
      columns: shape ? Number(shape[2]) : undefined,
      abbreviated,
    };
  }
  const parsed = parseHtmlTable(html);
  if (!parsed) return undefined;
  return { text: formatTable(parsed), rows: parsed.rows.length, columns: parsed.columns.length, abbreviated: false };
}
