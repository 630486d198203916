import type { ReplyFile } from '../domain/reply.js';
import type { TurnRun } from '../interpreter/turn.js';
import { formatCount } from '../domain/text/format.js';
import type { FileNames } from './reply-media.js';
import { codeBlock, errorBlock, isLongOutput, previewOutput, splitLines, statusNotes } from './run-output.js';
import { readTableDisplay, type TableDisplay } from './tables.js';
import { readTableData } from '../domain/text/table-data.js';

/** Wider tables are attached rather than wrapped by the chat client into an unreadable block. */
const TABLE_MAX_WIDTH_CHARS = 120;

export interface RunSectionContext {
  /** 1-based number of the run in the turn. */
  number: number;
  /** Whether the turn made more than one run (then each section is headed and files are numbered). */
  several: boolean;
  /** The run's full output text (stdout, stderr, text values). */
  output: string;
  maxOutputLines: number;
  names: FileNames;
  /** Attached names of generated files, by sandbox path. */
  nameByPath: Map<string, string>;
}

/**
 * The markdown of one run in direct mode, where the run's output is the answer: how it ended when not
 * normally, its output (long output attached, see previewOutput), its tables, and its error with traceback.
 */
export function directRunSection(run: TurnRun, ctx: RunSectionContext): { markdown: string; files: ReplyFile[] } {
  const parts: string[] = [];
  const files: ReplyFile[] = [];
  if (ctx.several) parts.push(`**Run ${ctx.number}** (${run.language})`);
  parts.push(...statusNotes(run.result).map((n) => `_${n}_`));
  if (ctx.output.length > 0) {
    const fileName = isLongOutput(ctx.output, ctx.maxOutputLines)
      ? ctx.names.unique(ctx.several ? `output-${ctx.number}.txt` : 'output.txt')
      : '';
    const preview = previewOutput(ctx.output, { maxLines: ctx.maxOutputLines, fileName });
    parts.push(preview.markdown);
    if (preview.full)
      files.push({
        name: fileName,
        mime: 'text/plain',
        data: preview.full,
        description: `full output of run ${ctx.number}`,
      });
  }
  const csvNames = run.result.artifacts
    .filter((a) => a.mime === 'text/csv' || /\.csv$/i.test(a.path))
    .map((a) => ctx.nameByPath.get(a.path))
    .filter((n): n is string => n !== undefined);
  let tableNumber = 0;
  for (const display of run.result.displays) {
    // A DataFrame's table travels in Reply.tables, drawn by each surface; other HTML tables stay text.
    if (readTableData(display)) {
      tableNumber += 1;
      continue;
    }
    const table = readTableDisplay(display);
    if (!table) continue;
    tableNumber += 1;
    const section = tableSection(table, { ...ctx, csvNames, tableNumber });
    parts.push(section.markdown);
    files.push(...section.files);
  }
  const error = errorBlock(run.result);
  if (error) parts.push(error);
  const showsSomething = ctx.output.length > 0 || tableNumber > 0 || error;
  if (!showsSomething && run.result.displays.length === 0 && run.result.artifacts.length === 0)
    parts.push('_No output._');
  return { markdown: parts.join('\n\n'), files };
}

/** Whether a table is small enough to read in the chat as monospace text. */
export function isSmallTable(table: TableDisplay, maxLines: number): boolean {
  const lines = splitLines(table.text);
  return !table.abbreviated && lines.length <= maxLines && lines.every((l) => l.length <= TABLE_MAX_WIDTH_CHARS);
}

/**
 * A small table is shown whole. A large one is announced with its shape and, when the run wrote a CSV, points
 * to it; pandas' own head-and-tail view is shown (or attached when even that is long).
 */
function tableSection(
  table: TableDisplay,
  ctx: RunSectionContext & { csvNames: string[]; tableNumber: number },
): { markdown: string; files: ReplyFile[] } {
  if (isSmallTable(table, ctx.maxOutputLines)) return { markdown: codeBlock(table.text), files: [] };
  const shape =
    table.rows !== undefined && table.columns !== undefined
      ? `Table: ${formatCount(table.rows)} rows × ${formatCount(table.columns)} columns`
      : 'Table';
  const csv = ctx.csvNames.length > 0 ? ctx.csvNames.map((n) => `\`${n}\``).join(', ') : undefined;
  const note = csv
    ? `${shape}; every row is in ${csv} (attached).`
    : table.abbreviated
      ? `${shape}; only the first and last rows are shown. \`df.to_csv('table.csv')\` saves every row as a file.`
      : `${shape}.`;
  const long =
    isLongOutput(table.text, ctx.maxOutputLines) ||
    splitLines(table.text).some((l) => l.length > TABLE_MAX_WIDTH_CHARS);
  const fileName = long ? ctx.names.unique(`table-${ctx.several ? `${ctx.number}-` : ''}${ctx.tableNumber}.txt`) : '';
  if (!long) return { markdown: `${note}\n${codeBlock(table.text)}`, files: [] };
  const full = Buffer.from(`${table.text}\n`, 'utf8');
  return {
    markdown: `${note} The table as printed is attached as \`${fileName}\`.`,
    files: [{ name: fileName, mime: 'text/plain', data: full, description: `table ${ctx.tableNumber} as printed` }],
  };
}
