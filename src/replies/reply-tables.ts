import type { OmittedFile, ReplyFile, ReplyTable } from '../domain/reply.js';
import type { TurnRun } from '../interpreter/turn.js';
import type { Logger } from '../logger.js';
import type { Sandbox } from '../ports/sandbox.js';
import { formatCount } from '../domain/text/format.js';
import type { FileNames } from './reply-media.js';
import { isWholeTable, readTableData, type TableData } from '../domain/text/table-data.js';

/** Tables shown in one reply; more are counted in a line (each one's text is still in the model's answer). */
export const MAX_TABLES_PER_REPLY = 5;

export interface TableDeps {
  sandbox: Pick<Sandbox, 'readFile'>;
  threadKey: string;
  /** A CSV larger than this is not read back (THREADLAB_MAX_FILE_MB); the runner keeps its CSVs within it. */
  maxFileBytes: number;
  logger?: Logger;
}

export interface CollectedTables {
  tables: ReplyTable[];
  /** The sandbox's CSVs of tables that are cut, named `table-N.csv`. */
  files: ReplyFile[];
  omitted: OmittedFile[];
  /** Said in the reply's text: tables beyond the limit. */
  notes: string[];
}

/**
 * The DataFrames a turn displayed, as tables for the surfaces. Direct turns show every run's; answers of the
 * model show those of its last run that displayed any (earlier runs are usually the model looking at the data).
 * A table the sandbox cut comes with its CSV; one whose CSV cannot be read says why.
 */
export async function collectTables(
  runs: TurnRun[],
  options: { direct: boolean; names: FileNames; deps: TableDeps },
): Promise<CollectedTables> {
  const perRun = runs.map((run) => run.result.displays.map(readTableData).filter((t): t is TableData => !!t));
  const chosen = options.direct ? perRun.flat() : (perRun.filter((t) => t.length > 0).pop() ?? []);
  const out: CollectedTables = { tables: [], files: [], omitted: [], notes: [] };
  const shown = chosen.slice(-MAX_TABLES_PER_REPLY);
  if (chosen.length > shown.length)
    out.notes.push(
      `The runs displayed ${formatCount(chosen.length)} tables; the last ${MAX_TABLES_PER_REPLY} are shown.`,
    );
  for (const [i, data] of shown.entries()) {
    const number = i + 1;
    const table: ReplyTable = {
      columns: data.columns,
      numeric: data.dtypes.map((d) => /^(u?int|float|complex|Int|UInt|Float)\d*/.test(d)),
      rows: data.rows,
      totalRows: data.totalRows,
      totalColumns: data.totalColumns + data.indexColumns,
      whole: isWholeTable(data),
      number,
      // Claimed for every table: a surface that cuts a whole table attaches its rows under this name.
      csvFileName: options.names.unique(`table-${number}.csv`),
    };
    if (!table.whole) Object.assign(table, await readCsv(data, { number, name: table.csvFileName! }, options, out));
    out.tables.push(table);
  }
  return out;
}

async function readCsv(
  data: TableData,
  { number, name }: { number: number; name: string },
  options: { names: FileNames; deps: TableDeps },
  out: CollectedTables,
): Promise<Partial<ReplyTable>> {
  if (!data.csv) return { csvMissing: `The full table could not be saved: ${data.csvError ?? 'no file was written'}.` };
  const { deps } = options;
  try {
    const bytes = await deps.sandbox.readFile(deps.threadKey, data.csv.path);
    if (bytes.length > deps.maxFileBytes) throw new Error(`it is larger than the ${deps.maxFileBytes}-byte file limit`);
    const rows = Math.min(data.csv.rows, data.totalRows);
    out.files.push({
      name,
      mime: 'text/csv',
      data: bytes,
      description:
        rows < data.totalRows
          ? `table ${number}, the first ${formatCount(rows)} of ${formatCount(data.totalRows)} rows`
          : `table ${number}, every row`,
    });
    return { csvName: name, csvRows: rows };
  } catch (err) {
    deps.logger?.warn({ err, path: data.csv.path }, 'table CSV could not be read');
    const reason = `the CSV of table ${number} could not be read from the sandbox (${(err as Error).message})`;
    out.omitted.push({ name, bytes: data.csv.bytes, reason });
    return { csvMissing: `The full table is not attached: ${reason}.` };
  }
}
