import type { Display, ExecutionResult } from '../domain/execution.js';
import { formatBytes } from '../domain/text/format.js';
import { cutHeadTail } from './text-cut.js';
import { stateNotSavedText, stateRestoredText } from '../domain/state-notice.js';
import { isInstalledPackageFile, isInternalFile, isTableCsvFile } from '../domain/file-names.js';

/** Limits of what one tool result shows the model. */
export interface ToolResultLimits {
  /** Characters kept of stdout and of stderr each, head and tail. @defaultValue 6000 */
  streamChars?: number;
  /** Characters kept of a traceback. @defaultValue 4000 */
  tracebackChars?: number;
  /** Characters kept of each displayed value's text. @defaultValue 2000 */
  displayChars?: number;
}

/** The PNG images of a run's displays, for models that read images. */
export function pngDisplays(result: ExecutionResult): Display[] {
  return result.displays.filter((d) => typeof d.data['image/png'] === 'string');
}

function describeStatus(result: ExecutionResult): string {
  const base = `status: ${result.status} (${result.durationMs} ms, run #${result.executionCount})`;
  if (result.status === 'timeout')
    return result.interruptedBy === 'cancelled'
      ? `${base}. The user stopped the run; variables are kept.`
      : `${base}. The run hit its time limit and was interrupted.`;
  if (result.status === 'killed') {
    const why = result.killReason ? ` (${result.killReason})` : '';
    return `${base}. The run was killed${why}; the Python variables are gone, files in /mnt/data are kept.`;
  }
  return base;
}

function section(title: string, body: string, notes: string[]): string {
  const suffix = notes.length > 0 ? ` [${notes.join('; ')}]` : '';
  return `${title}:${suffix}\n${body.replace(/\s+$/, '')}`;
}

function describeDisplay(display: Display, index: number, limit: number): string {
  const { data, meta } = display;
  if (typeof data['image/png'] === 'string') {
    const title = meta?.title ? ` "${meta.title}"` : '';
    const axes = [meta?.xlabel && `x: ${meta.xlabel}`, meta?.ylabel && `y: ${meta.ylabel}`].filter(Boolean).join(', ');
    const size = meta?.width && meta?.height ? ` ${meta.width}x${meta.height}px` : '';
    return `[${index}] image/png chart${title}${axes ? ` (${axes})` : ''}${size} — it will be shown to the user`;
  }
  const text = data['text/plain'] ?? data['text/markdown'] ?? data['text/html'];
  if (text !== undefined) return `[${index}] ${cutHeadTail(text, { maxChars: limit }).text}`;
  return `[${index}] (${Object.keys(data).join(', ')})`;
}

/**
 * Renders a run's result as the text of a tool message: status, stdout and stderr cut head-and-tail
 * with the elided count, the error and its traceback, displayed values as text, the files created or
 * changed and any loss of interpreter state.
 */
export function formatToolResult(result: ExecutionResult, limits: ToolResultLimits = {}): string {
  const streamChars = limits.streamChars ?? 6000;
  const parts: string[] = [describeStatus(result)];
  if (result.stateReset) {
    parts.push(
      `note: the interpreter state was reset before or during this run (${result.stateReset.reason}). Variables from earlier runs are gone; files in /mnt/data are kept. Re-run any setup code you need.`,
    );
  }
  if (result.stateRestored) {
    parts.push(
      `note: this thread's sandbox was replaced and its saved variables were loaded before this run: ${stateRestoredText(result.stateRestored)}. Variables not restored must be recreated if you need them.`,
    );
  }
  if (result.stateNotSaved) parts.push(`note: ${stateNotSavedText(result.stateNotSaved)}.`);
  if (result.stoppedProcesses) {
    parts.push(
      `note: ${plural(result.stoppedProcesses, 'process')} the run left running (in the background, detached or setsid) ${result.stoppedProcesses === 1 ? 'was' : 'were'} stopped when it ended: nothing outlives its run here, so do long work in the foreground of one run.`,
    );
  }
  const savedTo = result.truncated?.fullOutputPath
    ? `; full output saved to /mnt/data/${result.truncated.fullOutputPath}`
    : '';
  for (const stream of ['stdout', 'stderr'] as const) {
    const text = result[stream];
    if (!text) continue;
    const cut = cutHeadTail(text, { maxChars: streamChars });
    const sandboxBytes = stream === 'stdout' ? result.truncated?.stdoutBytes : result.truncated?.stderrBytes;
    const notes = [
      cut.elidedChars > 0 ? `${cut.elidedChars} characters elided from the middle` : '',
      sandboxBytes ? `the sandbox already left out ${sandboxBytes} bytes${savedTo}` : '',
    ].filter(Boolean);
    parts.push(section(stream, cut.text, notes));
  }
  if (!result.stdout && !result.stderr && result.displays.length === 0 && result.status === 'ok') {
    parts.push('(no output: print() or display values to see them)');
  }
  if (result.error) {
    const { name, value, traceback } = result.error;
    parts.push(`error: ${name}: ${value}`);
    if (traceback) {
      const cut = cutHeadTail(traceback, { maxChars: limits.tracebackChars ?? 4000, headShare: 0.3 });
      parts.push(
        section(
          'traceback',
          cut.text,
          cut.elidedChars > 0 ? [`${cut.elidedChars} characters elided from the middle`] : [],
        ),
      );
    }
  }
  if (result.displays.length > 0) {
    const limit = limits.displayChars ?? 2000;
    parts.push(`displayed values:\n${result.displays.map((d, i) => describeDisplay(d, i + 1, limit)).join('\n')}`);
  }
  const packageFiles = result.artifacts.filter((a) => isInstalledPackageFile(a.path));
  const files = result.artifacts.filter((a) => !isInstalledPackageFile(a.path) && !isTableCsvFile(a.path));
  if (files.length > 0) {
    const lines = files.map((a) => `- /mnt/data/${a.path} (${a.change}, ${formatBytes(a.bytes)}, ${a.mime})`);
    parts.push(`files created or changed:\n${lines.join('\n')}`);
  }
  if (packageFiles.length > 0) {
    const bytes = packageFiles.reduce((n, a) => n + a.bytes, 0);
    parts.push(
      `installed packages: ${packageFiles.length} files (${formatBytes(bytes)}) under /mnt/data/.local, kept with the thread's files`,
    );
  }
  if (result.skippedArtifacts?.length) {
    parts.push(
      `files not returned to the user:\n${result.skippedArtifacts.map((s) => `- ${s.path}: ${s.reason}`).join('\n')}`,
    );
  }
  return parts.join('\n');
}

/** A short excerpt of a run for memory and budget summaries: status, error or the last output line. */
export function summarizeRun(result: ExecutionResult, maxChars = 300): string {
  if (result.error) return cutHeadTail(`${result.error.name}: ${result.error.value}`, { maxChars }).text;
  const out = (result.stdout || result.stderr).trim();
  const files = result.artifacts.filter((a) => !isInternalFile(a.path)).map((a) => a.path);
  const charts = pngDisplays(result).length;
  const bits = [
    out ? `output: ${cutHeadTail(out, { maxChars, headShare: 0.3 }).text}` : '',
    charts > 0 ? `${charts} chart${charts > 1 ? 's' : ''}` : '',
    files.length > 0 ? `files: ${files.join(', ')}` : '',
  ].filter(Boolean);
  return bits.length > 0 ? bits.join('; ') : result.status === 'ok' ? 'no output' : result.status;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 'es'}`;
}
