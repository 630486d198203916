import { createReadStream } from 'node:fs';
import { lstat, mkdir, open, readdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { ThreadlabError } from '../src/domain/errors.js';
import { BatchedWriter } from './batched-writer.js';
import { STATE_DIR_PARTS } from './session-state.js';

/** Whether sandbox-relative path parts are in the saved-state directory, which is not one of the thread's files. */
function inStateDir(parts: readonly string[]): boolean {
  return STATE_DIR_PARTS.every((part, i) => parts[i] === part);
}

/** A file kept in a session's host-side mirror. */
export interface MirroredFile {
  path: string;
  bytes: number;
  modifiedMs: number;
}

/**
 * The host copy of one session's `/mnt/data`, so files outlive the container: updated after each run
 * (artifacts written, deletions applied) and after uploads, restored into the next container.
 */
export class FileMirror {
  constructor(readonly root: string) {}

  /** Resolves a sandbox-relative path inside the mirror, refusing anything that could leave it. */
  resolve(path: string): string {
    const parts = path.split('/').filter((p) => p !== '' && p !== '.');
    if (
      parts.length === 0 ||
      parts.some((p) => p === '..' || p.includes('\\') || p.includes('\0')) ||
      inStateDir(parts)
    ) {
      throw new ThreadlabError('sandbox_file_rejected', `Unsafe file path: ${JSON.stringify(path)}`, {
        isPolicy: true,
      });
    }
    return join(this.root, ...parts);
  }

  async write(path: string, data: Buffer): Promise<void> {
    const target = this.resolve(path);
    await mkdir(dirname(target), { recursive: true });
    const temp = `${target}.threadlab-tmp`;
    await writeFile(temp, data);
    await rename(temp, target);
  }

  /**
   * Writes a file from a producer of chunks, through a temporary file renamed into place once the
   * producer finished: a failed transfer leaves the previous copy (or none), never a partial one.
   * Returns the bytes written.
   */
  async writeFrom(
    path: string,
    produce: (write: (chunk: Buffer) => Promise<void>) => Promise<unknown>,
  ): Promise<number> {
    const target = this.resolve(path);
    await mkdir(dirname(target), { recursive: true });
    const temp = `${target}.threadlab-tmp`;
    const handle = await open(temp, 'w', 0o600);
    const out = new BatchedWriter(handle);
    let written = 0;
    try {
      await produce(async (chunk) => {
        await out.write(chunk);
        written += chunk.length;
      });
      await out.flush();
      await handle.close();
    } catch (err) {
      await handle.close().catch(() => undefined);
      await unlink(temp).catch(() => undefined);
      throw err;
    }
    await rename(temp, target);
    return written;
  }

  /** The file's bytes in chunks of at most `chunkBytes`, for copying without holding it whole. */
  async *chunks(path: string, chunkBytes: number): AsyncIterable<Buffer> {
    const target = this.resolve(path);
    const info = await lstat(target).catch(() => undefined);
    if (!info?.isFile()) {
      throw new ThreadlabError('sandbox_file_rejected', `No such file in the session: ${path}`, { isPolicy: true });
    }
    yield* createReadStream(target, { highWaterMark: chunkBytes }) as AsyncIterable<Buffer>;
  }

  /** Whether the mirror holds `path` as a regular file. */
  async has(path: string): Promise<boolean> {
    return Boolean((await lstat(this.resolve(path)).catch(() => undefined))?.isFile());
  }

  async remove(path: string): Promise<void> {
    await unlink(this.resolve(path)).catch(() => undefined);
  }

  async read(path: string): Promise<Buffer> {
    const target = this.resolve(path);
    const info = await lstat(target).catch(() => undefined);
    if (!info?.isFile()) {
      throw new ThreadlabError('sandbox_file_rejected', `No such file in the session: ${path}`, { isPolicy: true });
    }
    return readFile(target);
  }

  /** Every regular file, with sandbox-relative `/` paths. */
  async list(): Promise<MirroredFile[]> {
    const entries = await readdir(this.root, { recursive: true, withFileTypes: true }).catch(() => []);
    const files: MirroredFile[] = [];
    for (const entry of entries) {
      if (!entry.isFile() || entry.name.endsWith('.threadlab-tmp')) continue;
      const full = join(entry.parentPath, entry.name);
      const path = relative(this.root, full).split(sep);
      if (inStateDir(path)) continue;
      const info = await lstat(full).catch(() => undefined);
      if (!info?.isFile()) continue;
      files.push({ path: path.join('/'), bytes: info.size, modifiedMs: info.mtimeMs });
    }
    return files.sort((a, b) => a.path.localeCompare(b.path));
  }

  async isEmpty(): Promise<boolean> {
    return (await this.list()).length === 0;
  }

  async clear(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
  }
}
