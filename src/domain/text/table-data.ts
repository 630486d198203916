import { z } from 'zod';
import type { Display } from '../execution.js';

/** The display type the sandbox runner adds to a DataFrame (sandbox/image/runner/table_display.py). */
export const TABLE_MIME = 'application/vnd.threadlab.table+json';

/** What the bot accepts of a table display; the runner sends at most 100 rows × 50 columns of 200 characters. */
export const TABLE_LIMITS = { maxRows: 1000, maxColumns: 100, maxCellChars: 1000, maxJsonChars: 1024 * 1024 } as const;

const cell = z.string().max(TABLE_LIMITS.maxCellChars);
const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

// The user's code runs in the kernel that makes this JSON: every field is a claim, checked here.
const tableSchema = z
  .object({
    columns: z.array(cell).min(1).max(TABLE_LIMITS.maxColumns),
    dtypes: z.array(z.string().max(100)).max(TABLE_LIMITS.maxColumns),
    rows: z.array(z.array(cell).max(TABLE_LIMITS.maxColumns)).max(TABLE_LIMITS.maxRows),
    totalRows: count,
    totalColumns: count,
    indexColumns: z.number().int().min(0).max(TABLE_LIMITS.maxColumns).default(0),
    csvPath: z
      .string()
      .regex(/^\.threadlab\/tables\/table-\d{1,30}\.csv$/)
      .optional(),
    csvRows: count.optional(),
    csvBytes: count.optional(),
    csvError: z.string().max(300).optional(),
  })
  .refine((t) => t.rows.every((r) => r.length === t.columns.length), 'every row has one cell per column')
  .refine((t) => t.rows.length <= t.totalRows, 'no more rows than the total');

/** A DataFrame a run displayed, as the runner described it: the first rows as text and the whole table's size. */
export interface TableData {
  /** Column labels, index columns first. */
  columns: string[];
  /** pandas dtype of each column (`index` for index columns). */
  dtypes: string[];
  /** The first rows, each cell as text. */
  rows: string[][];
  totalRows: number;
  /** Columns of the frame (index columns not counted). */
  totalColumns: number;
  indexColumns: number;
  /** Set when the display left something out: where the sandbox wrote every row that fit its file limit. */
  csv?: { path: string; rows: number; bytes: number };
  /** Why the CSV of a cut table could not be written. */
  csvError?: string;
}

/** Whether the rows and columns of `table` are all there is (nothing left out, no cell cut). */
export function isWholeTable(table: TableData): boolean {
  return (
    table.csv === undefined &&
    table.csvError === undefined &&
    table.rows.length === table.totalRows &&
    table.columns.length - table.indexColumns >= table.totalColumns
  );
}

/**
 * Reads the table a display carries, or undefined when it carries none or the claim is malformed (then the
 * display's text/plain still shows it).
 */
export function readTableData(display: Display): TableData | undefined {
  const text = display.data[TABLE_MIME];
  if (text === undefined || text.length > TABLE_LIMITS.maxJsonChars) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = tableSchema.safeParse(json);
  if (!parsed.success) return undefined;
  const t = parsed.data;
  return {
    columns: t.columns,
    dtypes: t.columns.map((_, i) => t.dtypes[i] ?? ''),
    rows: t.rows,
    totalRows: t.totalRows,
    totalColumns: t.totalColumns,
    indexColumns: Math.min(t.indexColumns, t.columns.length),
    ...(t.csvPath ? { csv: { path: t.csvPath, rows: t.csvRows ?? 0, bytes: t.csvBytes ?? 0 } } : {}),
    ...(t.csvError ? { csvError: t.csvError } : {}),
  };
}
