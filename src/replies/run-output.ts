import type { Display, ExecutionError, ExecutionResult } from '../domain/execution.js';
import { formatBytes, formatCount, formatDuration } from '../domain/text/format.js';
import { readTableDisplay } from './tables.js';
import { stateNotSavedText, stateRestoredText } from '../domain/state-notice.js';

// Terminal colour codes (IPython tracebacks) are noise in chat.
// eslint-disable-next-line no-control-regex
const ANSI_RE = /\x1b\[[0-9;?]*[A-Za-z]/g;
/** Lines of an output excerpt (RunRecord.outputExcerpt): the first few and the last few. */
const EXCERPT_HEAD_LINES = 8;
const EXCERPT_TAIL_LINES = 4;
const EXCERPT_MAX_CHARS = 1200;
/** Longest line shown in a preview; the attached file keeps it whole. */
const PREVIEW_LINE_CHARS = 300;
/** Average characters per line above which an output counts as long even with few lines. */
const LONG_OUTPUT_CHARS_PER_LINE = 160;

export function stripAnsi(text: string): string {
  return text.replace(ANSI_RE, '');
}

/** Plain-text displays (the value of a cell's last expression), not images or tables. */
export function textDisplays(displays: Display[]): string[] {
  return displays
    .filter((d) => !Object.keys(d.data).some((m) => m.startsWith('image/')) && !readTableDisplay(d))
    .map((d) => d.data['text/plain'] ?? d.data['text/markdown'])
    .filter((t): t is string => typeof t === 'string' && t.length > 0);
}

/** What a user would read in a notebook: stdout, stderr, then the values displayed as text. */
export function runOutputText(result: ExecutionResult, fullOutput?: string): string {
  const parts = fullOutput !== undefined ? [fullOutput] : [result.stdout, result.stderr];
  parts.push(...textDisplays(result.displays));
  return stripAnsi(
    parts
      .filter((p) => p.length > 0)
      .map((p) => p.replace(/\n$/, ''))
      .join('\n'),
  );
}

/** A short head-and-tail excerpt for RunRecord, with the error's last line; undefined when nothing was printed. */
export function outputExcerpt(output: string, error?: ExecutionError): string | undefined {
  const lines = splitLines(output);
  if (error) lines.push(`${error.name}: ${error.value}`);
  if (lines.length === 0) return undefined;
  const keep = EXCERPT_HEAD_LINES + EXCERPT_TAIL_LINES;
  const shown =
    lines.length <= keep + 1
      ? lines
      : [
          ...lines.slice(0, EXCERPT_HEAD_LINES),
          `… ${formatCount(lines.length - keep)} more lines …`,
          ...lines.slice(-EXCERPT_TAIL_LINES),
        ];
  const text = shown.join('\n');
  return text.length > EXCERPT_MAX_CHARS ? `${text.slice(0, EXCERPT_MAX_CHARS - 1)}…` : text;
}

export interface OutputPreview {
  /** Markdown: a fenced block of the output (or its head and tail) and, when long, a summary line. */
  markdown: string;
  /** Set when the output is long: the whole of it, to attach as a file. */
  full?: Buffer;
}

/**
 * Shows an output in the reply. Up to `maxLines` lines go in a code block. A longer output is never cut:
 * the block shows its first two thirds and last third of `maxLines`, a summary line says how long it is, and
 * the whole output is returned for attaching under `fileName`.
 */
export function previewOutput(text: string, o: { maxLines: number; fileName: string }): OutputPreview {
  const lines = splitLines(text);
  if (!isLongOutput(text, o.maxLines)) return { markdown: codeBlock(lines.join('\n')) };
  const tailN = Math.floor(o.maxLines / 3);
  const headN = Math.max(1, o.maxLines - tailN);
  const cut = (l: string) => (l.length > PREVIEW_LINE_CHARS ? `${l.slice(0, PREVIEW_LINE_CHARS - 1)}…` : l);
  const hidden = Math.max(0, lines.length - headN - tailN);
  const shown =
    hidden > 0
      ? [...lines.slice(0, headN), `… ${formatCount(hidden)} lines not shown …`, ...lines.slice(-tailN)]
      : lines;
  const bytes = Buffer.byteLength(text);
  const what = hidden > 0 ? `showing the first ${headN} and last ${tailN}` : 'long lines shortened here';
  return {
    markdown: `${codeBlock(shown.map(cut).join('\n'))}\nOutput: ${formatCount(lines.length)} lines (${formatBytes(bytes)}), ${what}; the full output is attached as \`${o.fileName}\`.`,
    full: Buffer.from(text.endsWith('\n') ? text : `${text}\n`, 'utf8'),
  };
}

/** Whether an output is too long to show whole: more than `maxLines` lines, or very long lines. */
export function isLongOutput(text: string, maxLines: number): boolean {
  return text.length > maxLines * LONG_OUTPUT_CHARS_PER_LINE || splitLines(text).length > maxLines;
}

/** Lines for the user about how a run ended, when it did not end normally. */
export function statusNotes(result: ExecutionResult): string[] {
  const notes: string[] = [];
  if (result.status === 'timeout')
    notes.push(
      result.interruptedBy === 'cancelled'
        ? `The run was stopped at your request after ${formatDuration(result.durationMs)}; variables are kept.`
        : `The run timed out after ${formatDuration(result.durationMs)} and was interrupted.`,
    );
  if (result.status === 'killed') {
    const why = {
      memory: 'it ran out of memory',
      timeout: 'it did not stop at its time limit',
      crash: 'the interpreter crashed',
      cancelled: 'it was cancelled',
    };
    notes.push(
      `The run was stopped because ${result.killReason ? why[result.killReason] : 'the interpreter stopped'}; variables are gone, files in /mnt/data are kept.`,
    );
  }
  if (result.stateReset) notes.push(`Variables were reset (${result.stateReset.reason}); files in /mnt/data are kept.`);
  if (result.stateRestored) notes.push(`${capitalise(stateRestoredText(result.stateRestored))}.`);
  if (result.stateNotSaved) notes.push(`${capitalise(stateNotSavedText(result.stateNotSaved))}.`);
  if (result.stoppedProcesses) {
    const n = result.stoppedProcesses;
    notes.push(
      `${n} background ${n === 1 ? 'process' : 'processes'} left running by the run ${n === 1 ? 'was' : 'were'} stopped when it ended.`,
    );
  }
  return notes;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The error of a run as markdown: its name and message, then the traceback in a code block. */
export function errorBlock(result: ExecutionResult): string | undefined {
  if (!result.error) return undefined;
  const { name, value, traceback } = result.error;
  const tb = stripAnsi(traceback).trim();
  return `**${name}**: ${value}${tb ? `\n${codeBlock(tb)}` : ''}`;
}

/** A fenced block whose fence is longer than any backtick run inside, so the content cannot close it. */
export function codeBlock(text: string, language = 'text'): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${text}\n${fence}`;
}

export function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}
