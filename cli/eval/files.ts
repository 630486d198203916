import type { Cell, Table } from './table.js';
import { writeXlsx, type Sheet } from './xlsx.js';

export type { Cell, Table } from './table.js';

/** A file a task uploads into the thread, and the text the no-code mode inlines in its prompt instead. */
export interface EvalFile {
  name: string;
  data: Buffer;
  text: string;
}

function csvCell(cell: Cell): string {
  if (cell === null) return '';
  const text = typeof cell === 'object' ? cell.date : String(cell);
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A table as CSV text (RFC 4180 quoting, `\n` line ends). */
export function toCsv(table: Table): string {
  const lines = [table.columns, ...table.rows].map((row) => row.map(csvCell).join(','));
  return `${lines.join('\n')}\n`;
}

export function csvFile(name: string, table: Table): EvalFile {
  const text = toCsv(table);
  return { name, data: Buffer.from(text, 'utf8'), text };
}

/** A workbook; its text for the no-code mode is each sheet as CSV under its name. */
export async function xlsxFile(name: string, sheets: Sheet[]): Promise<EvalFile> {
  const text = sheets.map((s) => `Sheet "${s.name}":\n${toCsv(s.table)}`).join('\n');
  return { name, data: await writeXlsx(sheets), text };
}
