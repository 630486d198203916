/** A value of a generated table: text, a number, a calendar date (a date cell in a workbook) or empty. */
export type Cell = string | number | null | { date: string };

export interface Table {
  columns: string[];
  rows: Cell[][];
}
