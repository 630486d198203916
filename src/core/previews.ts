import type { FilePreview, SandboxFile } from '../domain/execution.js';
import { formatBytes } from './attachments.js';

/** A short acknowledgement of uploaded files with what the sandbox saw inside them. */
export function describeUploads(files: SandboxFile[], previews: FilePreview[]): string {
  const lines = [`Added ${files.length === 1 ? 'a file' : `${files.length} files`} to this thread's \`/mnt/data\`:`];
  for (const file of files) {
    const preview = previews.find((p) => p.path === file.path);
    lines.push(`• \`${file.path}\` (${formatBytes(file.bytes)})${summarise(preview)}`);
    const table = preview?.tables?.[0];
    if (table?.head) lines.push('```', table.head.split('\n').slice(0, 6).join('\n'), '```');
  }
  lines.push('Ask a question about them, or send a ```python block to work with them directly.');
  return lines.join('\n');
}

function summarise(preview: FilePreview | undefined): string {
  if (!preview) return '';
  if (preview.error) return ` — could not preview: ${preview.error}`;
  if (preview.tables?.length) {
    return preview.tables
      .map(
        (t) =>
          ` — ${t.sheet ? `sheet "${t.sheet}": ` : ''}${t.rows} rows × ${t.columns.length} columns (${t.columns
            .slice(0, 6)
            .map((c) => `${c.name}: ${c.dtype}`)
            .join(', ')}${t.columns.length > 6 ? ', …' : ''})`,
      )
      .join(';');
  }
  return preview.kind === 'binary' ? '' : ` — ${preview.kind}`;
}
