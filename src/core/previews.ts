import type { FilePreview, SandboxFile } from '../domain/execution.js';
import { formatCount } from '../domain/text/format.js';
import { formatBytes } from '../domain/text/format.js';

/**
 * Bounds of the upload acknowledgement. A preview comes out of the sandbox, where the user's code runs too, so
 * its sizes are claims: every part is cut here whatever the runner sent.
 */
export const UPLOAD_NOTE_LIMITS = {
  /** Files described one by one; the rest are counted in one line. */
  files: 20,
  /** Files whose first rows are shown. */
  heads: 5,
  /** Lines and characters per line of the first rows shown. */
  headLines: 6,
  headLineChars: 160,
  /** Columns named per table, and characters of each name. */
  columns: 6,
  nameChars: 60,
  /** Characters of an error or a text summary. */
  textChars: 300,
} as const;

/** A short acknowledgement of uploaded files with what the sandbox saw inside them, bounded in size. */
export function describeUploads(files: SandboxFile[], previews: FilePreview[]): string {
  const L = UPLOAD_NOTE_LIMITS;
  const byPath = new Map(previews.map((p) => [p.path, p]));
  const lines = [`Added ${files.length === 1 ? 'a file' : `${files.length} files`} to this thread's \`/mnt/data\`:`];
  let heads = 0;
  for (const file of files.slice(0, L.files)) {
    const preview = byPath.get(file.path);
    lines.push(`• \`${cut(file.path, L.nameChars)}\` (${formatBytes(file.bytes)})${summarise(preview)}`);
    const head = preview?.error ? undefined : preview?.tables?.[0]?.head;
    if (head && heads < L.heads) {
      heads += 1;
      const shown = head
        .split('\n')
        .slice(0, L.headLines)
        .map((l) => cut(l, L.headLineChars).replace(/```/g, 'ˋˋˋ'));
      lines.push('```', ...shown, '```');
    }
  }
  if (files.length > L.files)
    lines.push(`• … and ${formatCount(files.length - L.files)} more files, all in \`/mnt/data\``);
  lines.push('Ask a question about them, or send a ```python block to work with them directly.');
  return lines.join('\n');
}

function summarise(preview: FilePreview | undefined): string {
  const L = UPLOAD_NOTE_LIMITS;
  if (!preview) return '';
  if (preview.error) {
    const error = cut(preview.error, L.textChars);
    // The runner says "preview skipped: …" when it gave up on time or at a Stop; other errors are the file's.
    return error.startsWith('preview skipped:') ? ` — ${error}` : ` — could not preview: ${error}`;
  }
  const tables = preview.tables ?? [];
  if (tables.length > 0) {
    const shown = tables.slice(0, 3).map((t) => {
      const total = Math.max(t.columnCount ?? 0, t.columns.length);
      const named = t.columns
        .slice(0, L.columns)
        .map((c) => `${cut(c.name, L.nameChars)}: ${cut(c.dtype, 20)}`)
        .join(', ');
      const sheet = t.sheet !== undefined ? `sheet "${cut(t.sheet, L.nameChars)}": ` : '';
      return ` — ${sheet}${formatCount(t.rows)} rows × ${formatCount(total)} columns (${named}${total > L.columns ? ', …' : ''})`;
    });
    const more = tables.length > 3 ? `; and ${formatCount(tables.length - 3)} more sheets` : '';
    return shown.join(';') + more;
  }
  return preview.kind === 'binary' ? '' : ` — ${preview.kind}`;
}

function cut(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 1)}…`;
}
