import { extname } from 'node:path';
import { ThreadlabError } from '../src/domain/errors.js';

const MIME: Record<string, string> = {
  '.csv': 'text/csv',
  '.tsv': 'text/tab-separated-values',
  '.txt': 'text/plain',
  '.log': 'text/plain',
  '.md': 'text/markdown',
  '.json': 'application/json',
  '.html': 'text/html',
  '.xml': 'application/xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.py': 'text/x-python',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.xls': 'application/vnd.ms-excel',
  '.parquet': 'application/vnd.apache.parquet',
  '.sqlite': 'application/vnd.sqlite3',
  '.db': 'application/vnd.sqlite3',
};

/** A MIME type from a file name, for files listed from the host mirror. */
export function mimeFromPath(path: string): string {
  return MIME[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * Turns an uploaded file's name into a safe path relative to /mnt/data: directories are kept,
 * `..` and empty parts dropped, unusual characters replaced by `_`.
 */
export function sanitizeFileName(name: string): string {
  const parts = name
    .split(/[\\/]+/)
    .map((part) =>
      part
        .normalize('NFC')
        .replace(/[^\p{L}\p{N}._\- ()+,@=]/gu, '_')
        .trim()
        .slice(0, 120),
    )
    .filter((part) => part !== '' && !/^\.+$/.test(part));
  const path = parts.slice(-4).join('/');
  if (!path) {
    throw new ThreadlabError('sandbox_file_rejected', `The file name ${JSON.stringify(name)} cannot be used.`, {
      isPolicy: true,
    });
  }
  return path;
}
