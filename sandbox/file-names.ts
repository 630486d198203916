import { ThreadlabError } from '../src/domain/errors.js';

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
