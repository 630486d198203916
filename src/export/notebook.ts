import { fenceLabel, type Language } from '../domain/execution.js';
import type { ExportEntry, ExportLog, ExportOutput } from '../ports/conversation-store.js';
import { figuresNote, figureTotals } from './figures-note.js';
import { activeMarkdown } from './inert-markup.js';
import { inertData, leftOutNote } from './inert-output.js';

/** A Jupyter notebook as nbformat 4.5 writes it (the subset Threadlab produces). */
export interface Notebook {
  nbformat: 4;
  nbformat_minor: 5;
  metadata: Record<string, unknown>;
  cells: NotebookCell[];
}

/**
 * nbformat's multiline string: one string (the schema takes it as well as the list of lines Jupyter writes). A list
 * costs a few bytes per line, so a log of many short lines would grow several times over; a string stays the size of
 * the log (THREADLAB's export limits), within every platform's upload limit.
 */
type Source = string;
export type NotebookCell =
  | { cell_type: 'markdown'; id: string; metadata: Record<string, unknown>; source: Source; attachments?: Attachments }
  | {
      cell_type: 'code';
      id: string;
      metadata: Record<string, unknown>;
      source: Source;
      execution_count: number;
      outputs: NotebookOutput[];
    };
type Attachments = Record<string, Record<string, string>>;
type NotebookOutput =
  | { output_type: 'stream'; name: 'stdout' | 'stderr'; text: Source }
  | { output_type: 'display_data'; data: Record<string, Source>; metadata: Record<string, unknown> };

/** Options of {@link buildNotebook}. */
export interface BuildNotebookOptions {
  log: ExportLog;
  /** The sandbox's Python version, when known. */
  python?: string;
  /** When the export was made. */
  exportedAt: Date;
}

const LANGUAGE_NAMES: Record<Language, string> = { python: 'Python', bash: 'bash', r: 'R', javascript: 'JavaScript' };

/**
 * An output as nbformat stores it, images as one base64 string without line breaks; HTML, SVG and Markdown only
 * when inert (inert-output.ts), and what was left out in its metadata (`threadlab.leftOut`) and in `notes`.
 */
function outputOf(output: ExportOutput, notes: string[]): NotebookOutput | undefined {
  if (output.type === 'stream') return { output_type: 'stream', name: output.name, text: output.text };
  const { data: kept, leftOut } = inertData(output.data);
  notes.push(...leftOut.map((form) => leftOutNote(form, kept)));
  if (Object.keys(kept).length === 0) return undefined;
  const data: Record<string, Source> = {};
  for (const [mime, value] of Object.entries(kept))
    data[mime] = mime.startsWith('image/') && mime !== 'image/svg+xml' ? value.replace(/\s+/g, '') : value;
  const metadata = leftOut.length ? { threadlab: { leftOut: leftOut.map((f) => f.mime) } } : {};
  return { output_type: 'display_data', data, metadata };
}

/** A note's text as Markdown shows it: what it quotes of a result (a MIME type, an element) is never markup. */
function escaped(note: string): string {
  return note.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function omittedNote(omitted: string[] | undefined): string {
  return omitted?.length
    ? `\n\n_Left out of this export (Threadlab's limits): ${omitted.map(escaped).join('; ')}._`
    : '';
}

/** The note of what a run's outputs left out as inert-only forms. */
function activeNote(notes: string[]): string {
  return notes.length
    ? `\n\n_Left out of this export as active content (scripts, event handlers and the like do not leave the sandbox): ${notes.map(escaped).join('; ')}._`
    : '';
}

/** The longest run of backticks in a text plus one, so a fence around it cannot be closed from inside. */
function fenceFor(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  return '`'.repeat(longest + 1);
}

/**
 * An R or JavaScript run as a Markdown cell: a notebook has one kernel (Python), and a cell of another language
 * would fail when the notebook is run top to bottom. The code, its text output and its charts (as attachments)
 * are kept for reading.
 */
function foreignRunCell(entry: Extract<ExportEntry, { kind: 'run' }>, id: string): NotebookCell {
  const name = LANGUAGE_NAMES[entry.language];
  const parts = [
    `_This ${name} code ran in the thread's ${name} session. A notebook runs one kernel (Python), so it is shown here and not run._`,
    '',
    `${fenceFor(entry.code)}${fenceLabel(entry.language)}\n${entry.code}\n${fenceFor(entry.code)}`,
  ];
  const attachments: Attachments = {};
  entry.outputs.forEach((output, n) => {
    const text = output.type === 'stream' ? output.text : output.data['text/plain'];
    const png = output.type === 'display' ? output.data['image/png'] : undefined;
    if (png) {
      attachments[`chart-${n + 1}.png`] = { 'image/png': png.replace(/\s+/g, '') };
      parts.push('', `![chart ${n + 1}](attachment:chart-${n + 1}.png)`);
    } else if (text) {
      parts.push('', 'Output:', '', `${fenceFor(text)}text\n${text.replace(/\n$/, '')}\n${fenceFor(text)}`);
    }
  });
  return {
    cell_type: 'markdown',
    id,
    metadata: { threadlab: { role: 'run', language: entry.language } },
    source: parts.join('\n') + omittedNote(entry.omitted),
    ...(Object.keys(attachments).length ? { attachments } : {}),
  };
}

/**
 * A user's message as Markdown, or as text in a fence when it holds markup that could run (a message of one user can
 * end up in a notebook another exports): the same check as the sandbox's Markdown results.
 */
function messageSource(text: string): string {
  const why = activeMarkdown(text);
  if (!why) return text;
  const fence = fenceFor(text);
  return `${fence}text\n${text}\n${fence}\n\n_Shown as text: it held ${escaped(why)}._`;
}

/**
 * The model's answer as Markdown (as a message is), with the check of its figures under it and, as data, in the
 * cell's metadata (`threadlab.figures`); an answer recorded without a check (or before checks) has neither.
 */
function answerCell(entry: Extract<ExportEntry, { kind: 'answer' }>, id: string): NotebookCell {
  const { figures } = entry;
  const note = figures ? `\n\n${figuresNote(figures)}` : '';
  return {
    cell_type: 'markdown',
    id,
    metadata: { threadlab: { role: 'answer', ...(figures ? { figures } : {}) } },
    source: messageSource(entry.text) + omittedNote(entry.omitted) + note,
  };
}

function headerCell(options: BuildNotebookOptions): NotebookCell {
  const { log } = options;
  const dropped = log.dropped
    ? `\n\n**${log.dropped} earlier entries of this thread are not in this export**: a thread keeps its newest entries only.`
    : '';
  const text =
    `# Threadlab thread\n\nExported ${options.exportedAt.toISOString()}. The thread's messages, every run that ` +
    `succeeded, in order, with their outputs, and the model's answers with how many of their figures were found in ` +
    `run output; failed attempts are left out. The code ran with \`/mnt/data\` ` +
    `holding the thread's files as its working directory: put the files there (or change the paths) and install ` +
    `\`requirements.txt\` to run it top to bottom.${dropped}`;
  return {
    cell_type: 'markdown',
    id: 'threadlab-header',
    metadata: { threadlab: { role: 'header' } },
    source: text,
  };
}

/**
 * The thread's export log as a notebook: messages and answers become Markdown cells, Python runs code cells with their
 * outputs (bash as `%%bash` cells), R and JavaScript runs Markdown cells (see {@link foreignRunCell}). Execution
 * counts are those of a fresh kernel running the notebook top to bottom. Pure.
 */
export function buildNotebook(options: BuildNotebookOptions): Notebook {
  const cells: NotebookCell[] = [headerCell(options)];
  let count = 0;
  options.log.entries.forEach((entry, n) => {
    const id = `cell-${n + 1}`;
    if (entry.kind === 'message') {
      const source = messageSource(entry.text) + omittedNote(entry.omitted);
      cells.push({ cell_type: 'markdown', id, metadata: { threadlab: { role: 'message' } }, source });
      return;
    }
    if (entry.kind === 'answer') {
      cells.push(answerCell(entry, id));
      return;
    }
    if (entry.language === 'r' || entry.language === 'javascript') {
      cells.push(foreignRunCell(entry, id));
      return;
    }
    count += 1;
    const source = entry.language === 'bash' ? `%%bash\n${entry.code}` : entry.code;
    const active: string[] = [];
    const outputs = entry.outputs.map((o) => outputOf(o, active)).filter((o): o is NotebookOutput => o !== undefined);
    const note = (omittedNote(entry.omitted) + activeNote(active)).trim();
    if (note) outputs.push({ output_type: 'display_data', data: { 'text/markdown': note }, metadata: {} });
    cells.push({
      cell_type: 'code',
      id,
      metadata: { threadlab: { role: 'run', language: entry.language } },
      source: source,
      execution_count: count,
      outputs,
    });
  });
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' },
      language_info: { name: 'python', ...(options.python ? { version: options.python } : {}) },
      threadlab: {
        exportedAt: options.exportedAt.toISOString(),
        droppedEntries: options.log.dropped,
        figures: figureTotals(options.log.entries),
      },
    },
    cells,
  };
}
