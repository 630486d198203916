import type { FilePreview } from '../../src/domain/execution.js';

function inferDtype(values: string[]): string {
  const present = values.filter((v) => v !== '');
  if (present.length > 0 && present.every((v) => /^-?\d+$/.test(v))) return 'int64';
  if (present.length > 0 && present.every((v) => !Number.isNaN(Number(v)))) return 'float64';
  return 'object';
}

/** The default preview: CSV as a table with inferred dtypes, JSON and text by their first lines. */
export function simplePreview(path: string, data: Buffer): FilePreview {
  const text = data.toString('utf8');
  if (/\.(csv|tsv)$/i.test(path)) {
    const sep = path.toLowerCase().endsWith('.tsv') ? '\t' : ',';
    const lines = text.split(/\r?\n/).filter((l) => l !== '');
    const header = (lines[0] ?? '').split(sep);
    const rows = lines.slice(1).map((l) => l.split(sep));
    const columns = header.map((name, i) => ({ name, dtype: inferDtype(rows.map((r) => r[i] ?? '')) }));
    return {
      path,
      bytes: data.length,
      kind: 'table',
      tables: [{ rows: rows.length, columns, head: lines.slice(0, 6).join('\n') }],
    };
  }
  if (/\.json$/i.test(path)) return { path, bytes: data.length, kind: 'json', text: text.slice(0, 500) };
  if (!data.subarray(0, 200).includes(0))
    return { path, bytes: data.length, kind: 'text', text: text.split('\n').slice(0, 10).join('\n') };
  return { path, bytes: data.length, kind: 'binary' };
}

export interface FakePreviewRequest {
  /** The session's files, path → bytes. */
  files: ReadonlyMap<string, Buffer>;
  paths: string[];
  /** Budget for all the files together. */
  budgetMs: number;
  signal?: AbortSignal | undefined;
  preview: (path: string, data: Buffer) => FilePreview;
  /** How long reading a file takes, in ms (a slow workbook, say). */
  costMs: (path: string, data: Buffer) => number;
}

const seconds = (ms: number) => `${ms / 1000} s`;

function skipped(path: string, bytes: number, why: string): FilePreview {
  return { path, bytes, kind: 'binary', error: `preview skipped: ${why}; the file is in /mnt/data` };
}

/** Waits `ms` unless the signal fires first; resolves whether it did. */
export function waitUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(true);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(false);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Previews the way the sandbox's runner does: one budget for all the files, a file that takes longer is
 * skipped and so is every file after the budget is used up, a stop skips the file in flight and the rest,
 * each skip saying why and that the file stays in /mnt/data.
 */
export async function previewWithinBudget(request: FakePreviewRequest): Promise<FilePreview[]> {
  const { files, signal, budgetMs } = request;
  const deadline = Date.now() + budgetMs;
  const out: FilePreview[] = [];
  for (const path of request.paths) {
    const name = path.split('/').pop() ?? path;
    const data = files.get(path);
    const bytes = data?.length ?? 0;
    if (signal?.aborted) {
      out.push(skipped(path, bytes, 'previews were stopped at your request'));
    } else if (Date.now() >= deadline) {
      out.push(skipped(path, bytes, `the ${seconds(budgetMs)} preview time limit was used up by earlier files`));
    } else if (path.split('/').includes('..')) {
      out.push({ path, bytes: 0, kind: 'binary', error: 'path must stay inside /mnt/data' });
    } else if (!data) {
      out.push({ path, bytes: 0, kind: 'binary', error: 'no such file' });
    } else {
      const costMs = request.costMs(path, data);
      const leftMs = deadline - Date.now();
      const stopped = costMs > 0 ? await waitUnlessAborted(Math.min(costMs, leftMs), signal) : false;
      if (stopped) out.push(skipped(path, bytes, `reading ${name} was stopped at your request`));
      else if (costMs >= leftMs)
        out.push(skipped(path, bytes, `reading ${name} took longer than ${seconds(budgetMs)}`));
      else out.push(request.preview(path, data));
    }
  }
  return out;
}
