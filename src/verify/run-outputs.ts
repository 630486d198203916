import type { Display, ExecutionResult } from '../domain/execution.js';
import { readTableData, type TableData } from '../domain/text/table-data.js';
import type { OutputSource } from './figure.js';
import { DEFAULT_MAX_OUTPUT_CHARS } from './verify-figures.js';

/** Generated files read back as output: text formats only. */
const TEXT_FILE = /\.(csv|tsv|txt|json|jsonl|md|log|tex)$/i;
/** Largest file (a run's full output, a table's CSV, a generated text file) read back for the check. */
export const MAX_READ_BACK_BYTES = 1024 * 1024;

export interface RunOutputsOptions {
  /** The turn's runs, in order: run N of the turn is `runs[N - 1]`. */
  runs: readonly { result: ExecutionResult }[];
  /** Reads a file of the thread's `/mnt/data` (the full output of a long run, a table's CSV, a generated file). */
  read?: (path: string) => Promise<Buffer>;
  /** Characters gathered at most; the rest is counted in `unreadChars`. @defaultValue the finder's 2 MB */
  maxChars?: number;
  /**
   * Files uploaded with the message, with their sizes: the model saw their previews and its code read them, so a
   * figure quoted from one has a source. Read (text formats) before the runs' outputs, counted in the same limits.
   */
  uploaded?: readonly { path: string; bytes: number }[];
}

/** What the turn's runs produced, as the figure finder reads it, and how much of it was not read. */
export interface RunOutputs {
  sources: OutputSource[];
  /** Characters known to exist but not read (a file over the limits, a read that failed). */
  unreadChars: number;
}

/**
 * The outputs of a turn's runs as text for the figure finder: printed output (whole, read back when the
 * sandbox elided its middle), the error's message, displayed values (text, tables and their CSVs), and the
 * text files the runs wrote. Bounded: files over {@link MAX_READ_BACK_BYTES} or past `maxChars` are counted
 * as unread, never read.
 */
export async function runOutputs(options: RunOutputsOptions): Promise<RunOutputs> {
  const maxChars = options.maxChars ?? DEFAULT_MAX_OUTPUT_CHARS;
  const sources: OutputSource[] = [];
  let chars = 0;
  let unreadChars = 0;
  const add = (run: number, kind: OutputSource['kind'], text: string, name?: string) => {
    if (text.length === 0) return;
    sources.push({ run, kind, text, ...(name !== undefined ? { name } : {}) });
    chars += text.length;
  };
  /** A file's text when it is small enough and fits what is left; otherwise counted as unread. */
  const readBack = async (path: string, bytes: number): Promise<string | undefined> => {
    if (!options.read || bytes > MAX_READ_BACK_BYTES || chars + bytes > maxChars) {
      unreadChars += bytes;
      return undefined;
    }
    try {
      return (await options.read(path)).subarray(0, MAX_READ_BACK_BYTES).toString('utf8');
    } catch {
      unreadChars += bytes;
      return undefined;
    }
  };

  for (const file of options.uploaded ?? []) {
    if (!TEXT_FILE.test(file.path)) continue;
    const text = await readBack(file.path, file.bytes);
    if (text !== undefined) add(0, 'file', text, file.path);
  }
  for (const [i, { result }] of options.runs.entries()) {
    const run = i + 1;
    const full = result.truncated;
    const whole = full?.fullOutputPath
      ? await readBack(full.fullOutputPath, full.stdoutBytes + full.stderrBytes)
      : undefined;
    add(run, 'stdout', whole ?? [result.stdout, result.stderr].filter((s) => s.length > 0).join('\n'));
    if (result.error) add(run, 'stdout', `${result.error.name}: ${result.error.value}`);
    for (const display of result.displays) {
      const table = readTableData(display);
      for (const [kind, text] of displayTexts(display, table)) add(run, kind, text);
      const csv = table?.csv;
      if (csv) {
        const text = await readBack(csv.path, csv.bytes);
        if (text !== undefined) add(run, 'table', text);
      }
    }
    for (const artifact of result.artifacts) {
      if (!TEXT_FILE.test(artifact.path)) continue;
      const text = await readBack(artifact.path, artifact.bytes);
      if (text !== undefined) add(run, 'file', text, artifact.path);
    }
  }
  return { sources, unreadChars };
}

/** The text forms of a displayed value: its plain text, or its table's rows, or its HTML without tags. */
function displayTexts(display: Display, table: TableData | undefined): [OutputSource['kind'], string][] {
  const out: [OutputSource['kind'], string][] = [];
  if (table) out.push(['table', [table.columns, ...table.rows].map((row) => row.join('\t')).join('\n')]);
  const plain = display.data['text/plain'];
  if (plain !== undefined) out.push(['result', plain]);
  else if (display.data['text/markdown'] !== undefined) out.push(['result', display.data['text/markdown']]);
  else if (display.data['text/html'] !== undefined && !table)
    out.push(['result', display.data['text/html'].replace(/<[^>]{0,2000}>/g, ' ')]);
  return out;
}
