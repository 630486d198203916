import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** A file that was not written under `--out`, and why. */
export interface RefusedWrite {
  /** The name as the sandbox claimed it. */
  name: string;
  reason: string;
}

/** What one call wrote under its `--out` directory. */
export interface OutReport {
  written: string[];
  refused: RefusedWrite[];
}

export interface OutWriterOptions {
  /** The directory the user named; created when missing. The user's own symlinks to it are followed. */
  outDir: string;
  /** Replace existing regular files (never links, directories or other types). @defaultValue false */
  overwrite?: boolean;
  /** Files one call may write; later ones are refused. @defaultValue 1000 */
  maxFiles?: number;
  /** Directories a name may nest. @defaultValue 16 */
  maxDepth?: number;
}

const WRITE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

class Refusal extends Error {}

/**
 * Writes files whose names come out of a sandbox (claims, not paths to trust) under one directory:
 * no absolute or dot names, no `..`, no following a link that is already there, no replacing an
 * existing file unless asked. Each refusal is recorded, never thrown. One call writes a name once: a reply
 * that carries the same file twice (a chart that is both an image and a file of the run) gets it once, and a
 * different file under a name this call already wrote is written beside it as "name (2).ext".
 */
export class OutWriter {
  private readonly report: OutReport = { written: [], refused: [] };
  private root: string | undefined;
  /** What this call wrote under each name: the path and the SHA-256 of the bytes. */
  private readonly own = new Map<string, { path: string; digest: string }>();

  constructor(private readonly options: OutWriterOptions) {}

  /** Writes `data` as `name`; returns the path written, or undefined when refused (see {@link result}). */
  async write(name: string, data: Buffer): Promise<string | undefined> {
    try {
      const digest = createHash('sha256').update(data).digest('hex');
      const earlier = this.own.get(name);
      if (earlier?.digest === digest) return earlier.path;
      if (this.report.written.length >= (this.options.maxFiles ?? 1000))
        throw new Refusal(`over the limit of ${this.options.maxFiles ?? 1000} files per call`);
      const parts = checkName(earlier ? this.freeName(name) : name, this.options.maxDepth ?? 16);
      const dir = await this.directoryFor(parts.slice(0, -1));
      const target = join(dir, parts[parts.length - 1]!);
      await this.writeFile(target, data);
      this.report.written.push(target);
      this.own.set(parts.join('/'), { path: target, digest });
      return target;
    } catch (err) {
      const reason = err instanceof Refusal ? err.message : `could not be written: ${(err as Error).message}`;
      this.report.refused.push({ name, reason });
      return undefined;
    }
  }

  /** "chart (2).png" for "chart.png": the first name of that shape this call has not written. */
  private freeName(name: string): string {
    const slash = name.lastIndexOf('/');
    const dot = name.lastIndexOf('.');
    const [stem, ext] = dot > slash + 1 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
    let n = 2;
    while (this.own.has(`${stem} (${n})${ext}`)) n += 1;
    return `${stem} (${n})${ext}`;
  }

  /** Everything written and refused so far. */
  result(): OutReport {
    return { written: [...this.report.written], refused: [...this.report.refused] };
  }

  private async directoryFor(dirs: string[]): Promise<string> {
    if (!this.root) {
      await mkdir(this.options.outDir, { recursive: true });
      this.root = await realpath(this.options.outDir);
    }
    let current = this.root;
    for (const part of dirs) {
      current = join(current, part);
      // mkdir never follows a final symlink (EEXIST); lstat then tells what is there.
      await mkdir(current).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
      });
      const info = await lstat(current);
      if (info.isSymbolicLink()) throw new Refusal(`${part}/ is a symbolic link in the output directory`);
      if (!info.isDirectory()) throw new Refusal(`${part} exists and is not a directory`);
    }
    return current;
  }

  private async writeFile(target: string, data: Buffer): Promise<void> {
    const existing = await lstat(target).catch(() => undefined);
    if (existing) {
      if (existing.isSymbolicLink()) throw new Refusal('a symbolic link with this name is in the output directory');
      if (!existing.isFile()) throw new Refusal('something that is not a regular file has this name');
      if (!this.options.overwrite) throw new Refusal('a file with this name exists (use --overwrite to replace it)');
      // Replace the directory entry, so a hard link to a file elsewhere is never written through.
      const temp = join(target, '..', `.threadlab-${randomBytes(6).toString('hex')}.tmp`);
      try {
        await writeNew(temp, data);
        await rename(temp, target);
      } finally {
        await rm(temp, { force: true });
      }
      return;
    }
    await writeNew(target, data).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'EEXIST' || err.code === 'ELOOP')
        throw new Refusal('something with this name appeared in the output directory while writing');
      throw err;
    });
  }
}

async function writeNew(path: string, data: Buffer): Promise<void> {
  const handle = await open(path, WRITE_NEW, 0o644);
  try {
    await handle.writeFile(data);
  } finally {
    await handle.close();
  }
}

/** Splits a sandbox-chosen name into safe components, or refuses it with the reason. */
function checkName(name: string, maxDepth: number): string[] {
  if (name.length === 0) throw new Refusal('empty name');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(name)) throw new Refusal('control characters or backslashes in the name');
  if (name.startsWith('/')) throw new Refusal('absolute path');
  const parts = name.split('/');
  if (parts.length > maxDepth + 1) throw new Refusal(`nested deeper than ${maxDepth} directories`);
  for (const part of parts) {
    if (part === '') throw new Refusal('empty path component');
    if (part === '..') throw new Refusal('".." in the path');
    if (part.startsWith('.')) throw new Refusal(`dot path (${part})`);
  }
  return parts;
}
