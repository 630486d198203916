import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join, normalize, sep } from 'node:path';

/**
 * Writes `data` as `name` under `outDir`, never outside it (a name with `..` or an absolute path
 * is reduced to its base name). Returns the path written.
 */
export async function writeUnder(outDir: string, name: string, data: Buffer): Promise<string> {
  const clean = normalize(name).replace(/^(\.\.(\/|\\|$))+/, '');
  const relative = clean.startsWith(sep) || clean.split(sep).includes('..') ? basename(name) : clean;
  const target = join(outDir, relative);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, data);
  return target;
}
