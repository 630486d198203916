/**
 * Names a query's result gets in the thread: its CSV under `/mnt/data` and its DataFrame in the kernel. Both are
 * made from the source's name and a number, reduced to what a file name and a Python identifier allow.
 */

/** Longest part of a name taken from the source or the model, in characters. */
const MAX_NAME_PART = 40;

const PYTHON_KEYWORDS = new Set(
  (
    'False None True and as assert async await break class continue def del elif else except finally for from ' +
    'global if import in is lambda nonlocal not or pass raise return try while with yield pd np'
  ).split(' '),
);

/** `text` as lowercase letters, digits and underscores, at most {@link MAX_NAME_PART} characters. */
function slug(text: string): string {
  const s = text
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, MAX_NAME_PART);
  return s || 'source';
}

/** The CSV of the `n`th query of a thread on `source`: `query_<n>_<source>.csv`. */
export function queryFileName(n: number, source: string): string {
  return `query_${n}_${slug(source)}.csv`;
}

const QUERY_FILE = /^query_(\d{1,9})_[a-z0-9_]+\.csv$/;

/** Whether `path` is a query's CSV as {@link queryFileName} names them (directly under `/mnt/data`). */
export const isQueryFileName = (path: string): boolean => QUERY_FILE.test(path);

/** The next query number of a thread, from the query files it already has (numbers are never reused). */
export function nextQueryNumber(paths: readonly string[]): number {
  let max = 0;
  for (const path of paths) {
    const m = QUERY_FILE.exec(path);
    if (m) max = Math.max(max, Number(m[1]));
  }
  return max + 1;
}

/**
 * The DataFrame's name: the model's `wanted` when it is a plain Python identifier (not a keyword, nor `pd`/`np`,
 * which the loading code uses), else `<source>_q<n>`.
 */
export function frameName(wanted: string | undefined, n: number, source: string): string {
  if (wanted && /^[A-Za-z_][A-Za-z0-9_]{0,39}$/.test(wanted) && !PYTHON_KEYWORDS.has(wanted)) return wanted;
  const base = slug(source);
  return `${/^[0-9]/.test(base) ? `s_${base}` : base}_q${n}`;
}
