/** Longest file name kept, in characters (extension included). */
export const SAFE_NAME_MAX_CHARS = 100;

/**
 * The one rule for names of files users send: no directories, no control or shell-special characters,
 * no leading dots, at most 100 characters with the extension kept. Never empty (`fallback` instead).
 * The sandbox checks again when the file is written (sandbox/file-names.ts).
 */
export function safeFileName(name: string, fallback = 'file'): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  let cleaned = base
    .normalize('NFC')
    .replace(/\p{Cc}/gu, '')
    .replace(/[^\p{L}\p{N}._\-+()@ ]/gu, '_')
    .replace(/\s+/g, '_')
    .replace(/^[.\-_]+/, '')
    .replace(/_{2,}/g, '_');
  if (cleaned.length > SAFE_NAME_MAX_CHARS) {
    const dot = cleaned.lastIndexOf('.');
    const ext = dot > 0 && cleaned.length - dot <= 12 ? cleaned.slice(dot) : '';
    cleaned = cleaned.slice(0, SAFE_NAME_MAX_CHARS - ext.length) + ext;
  }
  return cleaned.length > 0 ? cleaned : fallback;
}

/**
 * Directories of /mnt/data that hold the sandbox's own files rather than the user's: the runner's (full output of
 * a long run) and packages installed with pip (`--user`, under `.local`). They are kept and restored with the
 * thread's files but never attached to a reply, and the model hears of installed packages as a count.
 */
export const INTERNAL_DIRS = ['.threadlab/', '.local/'] as const;

/** Whether a path relative to /mnt/data is in one of {@link INTERNAL_DIRS}. */
export function isInternalFile(path: string): boolean {
  return INTERNAL_DIRS.some((dir) => path.startsWith(dir));
}

/**
 * Whether a path relative to /mnt/data is a CSV the runner wrote for a table it cut (every row of a displayed
 * DataFrame, attached to the reply): the model reads the table as text and is not told of these files.
 */
export function isTableCsvFile(path: string): boolean {
  return path.startsWith('.threadlab/tables/');
}

/** Whether a path relative to /mnt/data is a file of a package installed with pip. */
export function isInstalledPackageFile(path: string): boolean {
  return path.startsWith('.local/');
}
