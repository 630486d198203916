import type { Display, ExecutionResult } from '../domain/execution.js';
import { figureCounts, type AnswerFigures } from '../domain/figures.js';
import { cutHeadTail } from '../interpreter/text-cut.js';
import type { TurnRun } from '../interpreter/turn.js';
import type { ExportEntry, ExportLogLimits, ExportOutput, ConversationStore } from '../ports/conversation-store.js';

/** What a thread's export log keeps. Past these, entries and outputs are left out and the notebook says so. */
export const EXPORT_LIMITS = {
  /** Entries (messages and runs) per thread; the oldest go first. */
  maxEntries: 300,
  /** The whole log, in bytes of JSON: the notebook stays attachable on every platform (Discord's 10 MB). */
  maxLogBytes: 6 * 1024 * 1024,
  /** One entry, in bytes of JSON: outputs past it are left out. */
  maxEntryBytes: 2 * 1024 * 1024,
  /** One stream or text result, in characters (head and tail kept). */
  maxTextChars: 64 * 1024,
  /** Code of one run, in characters: longer code is left out whole (cut code would not run). */
  maxCodeChars: 256 * 1024,
  /** One user message or model answer, in characters. */
  maxMessageChars: 16 * 1024,
  /** Displays (results, charts) per run. */
  maxDisplays: 20,
  /** Charts per run. */
  maxImages: 4,
  /** One chart, in base64 characters. */
  maxImageChars: 1024 * 1024,
  /** The log expires this long after its last entry, as the thread's memory does. */
  ttlMs: 7 * 24 * 60 * 60_000,
};

/** MIME types a notebook output keeps; others in a display are dropped (a display keeps its text/plain). */
const KEPT_MIME = ['text/plain', 'text/html', 'text/markdown', 'image/png', 'image/jpeg', 'image/svg+xml'];
const IMAGE_MIME = new Set(['image/png', 'image/jpeg']);
const BASE64 = /^[A-Za-z0-9+/=\r\n]*$/;

function storeLimits(): ExportLogLimits {
  return { maxEntries: EXPORT_LIMITS.maxEntries, maxBytes: EXPORT_LIMITS.maxLogBytes, ttlMs: EXPORT_LIMITS.ttlMs };
}

/** A text cut to the per-output limit, with a note of what was cut. */
function cut(text: string, what: string, omitted: string[], maxChars = EXPORT_LIMITS.maxTextChars): string {
  const { text: kept, elidedChars } = cutHeadTail(text, { maxChars });
  if (elidedChars > 0) omitted.push(`${elidedChars} characters from the middle of ${what}`);
  return kept;
}

/** The display as a notebook keeps it, or undefined (with a note) when nothing of it can be kept. */
function keptDisplay(display: Display, images: { count: number }, omitted: string[]): ExportOutput | undefined {
  const data: Record<string, string> = {};
  const notesBefore = omitted.length;
  for (const mime of KEPT_MIME) {
    const value = display.data[mime];
    if (typeof value !== 'string') continue;
    if (IMAGE_MIME.has(mime)) {
      if (!BASE64.test(value)) continue;
      if (value.length > EXPORT_LIMITS.maxImageChars) {
        omitted.push(`a chart of ${value.length} base64 characters (over ${EXPORT_LIMITS.maxImageChars})`);
        continue;
      }
      if (images.count >= EXPORT_LIMITS.maxImages) {
        omitted.push(`a chart past the ${EXPORT_LIMITS.maxImages} kept per run`);
        continue;
      }
      images.count += 1;
      data[mime] = value;
    } else {
      data[mime] = cut(value, `a ${mime} result`, omitted);
    }
  }
  if (Object.keys(data).length === 0) {
    if (Object.keys(display.data).length > 0 && omitted.length === notesBefore)
      omitted.push(`a result in ${Object.keys(display.data).join(', ').slice(0, 200)}, which a notebook cannot show`);
    return undefined;
  }
  return { type: 'display', data };
}

/** The outputs of a run as the export keeps them: stdout, stderr, then its results and charts. */
function outputsOf(result: ExecutionResult, omitted: string[], budgetBytes: number): ExportOutput[] {
  const outputs: ExportOutput[] = [];
  let left = budgetBytes;
  const add = (output: ExportOutput, what: string): void => {
    const size = Buffer.byteLength(JSON.stringify(output));
    if (size > left) {
      omitted.push(`${what} (the run's outputs passed ${EXPORT_LIMITS.maxEntryBytes} bytes)`);
      return;
    }
    left -= size;
    outputs.push(output);
  };
  if (result.stdout) add({ type: 'stream', name: 'stdout', text: cut(result.stdout, 'stdout', omitted) }, 'stdout');
  if (result.stderr) add({ type: 'stream', name: 'stderr', text: cut(result.stderr, 'stderr', omitted) }, 'stderr');
  if (result.truncated)
    omitted.push(
      `the middle of the run's output, which the sandbox did not keep either` +
        (result.truncated.fullOutputPath ? ` (the full output is in ${result.truncated.fullOutputPath})` : ''),
    );
  const images = { count: 0 };
  const displays = result.displays.slice(0, EXPORT_LIMITS.maxDisplays);
  if (result.displays.length > displays.length)
    omitted.push(
      `${result.displays.length - displays.length} results past the ${EXPORT_LIMITS.maxDisplays} kept per run`,
    );
  for (const display of displays) {
    const kept = keptDisplay(display, images, omitted);
    if (kept) add(kept, 'a result');
  }
  return outputs;
}

/** The export entry of a run that succeeded (others are not exported: the notebook holds verified code only). */
export function runEntry(run: TurnRun, atMs: number): ExportEntry | undefined {
  if (run.result.status !== 'ok') return undefined;
  if (run.code.length > EXPORT_LIMITS.maxCodeChars) {
    return {
      kind: 'message',
      text: `_A ${run.language} run of ${run.code.length} characters was left out of the export (over ${EXPORT_LIMITS.maxCodeChars})._`,
      atMs,
      omitted: ['the code of a run'],
    };
  }
  const omitted: string[] = [];
  const outputs = outputsOf(run.result, omitted, EXPORT_LIMITS.maxEntryBytes - Buffer.byteLength(run.code) * 2);
  return {
    kind: 'run',
    language: run.language,
    code: run.code,
    outputs,
    atMs,
    ...(omitted.length ? { omitted } : {}),
    ...(run.query ? { queryFile: run.query.file } : {}),
    ...(run.query && run.query.sql.length <= EXPORT_LIMITS.maxCodeChars
      ? { query: { source: run.query.source, sql: run.query.sql, name: run.query.name } }
      : {}),
  };
}

/**
 * The Markdown cell before a query's loading run: the source and the SQL, and where its rows are saved, so the
 * notebook runs without the database (the next cell loads the saved CSV, attached to the export).
 */
export function queryEntry(run: TurnRun, atMs: number): ExportEntry | undefined {
  const q = run.query;
  if (!q || run.result.status !== 'ok') return undefined;
  const fence = q.sql.includes('```') ? '````' : '```';
  const capped = q.cut ? `, cut at the source's ${q.cut === 'rows' ? 'row' : 'byte'} cap` : '';
  const text =
    `_A query on the data source \`${q.source}\` (${q.rows} rows${capped}, ${q.ms} ms). Its rows are saved in ` +
    `\`${q.file}\` (attached to this export: put it in \`/mnt/data\`), which the next cell loads, so this notebook ` +
    `runs without the database._\n\n${fence}sql\n${q.sql}\n${fence}`;
  const omitted: string[] = [];
  return {
    kind: 'message',
    text: cut(text, 'a query', omitted, EXPORT_LIMITS.maxMessageChars),
    atMs,
    ...(omitted.length ? { omitted } : {}),
  };
}

/** The export entry of a user's message (its text, and the files it brought). */
export function messageEntry(text: string, files: string[], atMs: number): ExportEntry | undefined {
  const withFiles = files.length ? `${text}\n\n_(Uploaded: ${files.map((f) => `\`${f}\``).join(', ')})_` : text;
  if (withFiles.trim() === '') return undefined;
  const omitted: string[] = [];
  const kept = cut(withFiles, 'a message', omitted, EXPORT_LIMITS.maxMessageChars);
  return { kind: 'message', text: kept, atMs, ...(omitted.length ? { omitted } : {}) };
}

/**
 * The export entry of the model's answer: its text, cut like a message, and the counts of its figures' check
 * (the not-found figures by name, bounded: {@link figureCounts}) when it was checked.
 */
export function answerEntry(text: string, figures: AnswerFigures | undefined, atMs: number): ExportEntry | undefined {
  if (text.trim() === '' && !figures) return undefined;
  const omitted: string[] = [];
  const kept = cut(text, 'an answer', omitted, EXPORT_LIMITS.maxMessageChars);
  return {
    kind: 'answer',
    text: kept,
    atMs,
    ...(omitted.length ? { omitted } : {}),
    ...(figures ? { figures: figureCounts(figures) } : {}),
  };
}

/** Options of {@link recordTurn}. */
export interface RecordTurnOptions {
  store: ConversationStore;
  threadKey: string;
  /** The user's message; none for code sent to run as is (the run is the cell). */
  message?: { text: string; files: string[] };
  runs: TurnRun[];
  /** The model's answer and its figures' check; none for code sent to run as is. */
  answer?: { text: string; figures?: AnswerFigures };
  atMs: number;
}

/** Adds a turn to the thread's export log: the message, each run that succeeded, then the answer, in order. */
export async function recordTurn(options: RecordTurnOptions): Promise<void> {
  const { store, threadKey, message, runs, answer, atMs } = options;
  const entries = [
    message ? messageEntry(message.text, message.files, atMs) : undefined,
    ...runs.flatMap((run) => [queryEntry(run, atMs), runEntry(run, atMs)]),
    answer ? answerEntry(answer.text, answer.figures, atMs) : undefined,
  ].filter((e): e is ExportEntry => e !== undefined);
  for (const entry of entries) await store.appendExport(threadKey, entry, storeLimits());
}
