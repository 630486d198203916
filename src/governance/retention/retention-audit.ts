import { randomBytes, randomUUID } from 'node:crypto';
import { closeSync, createReadStream, fstatSync, openSync, readSync, renameSync, writeSync } from 'node:fs';
import { open, rm, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { parseAuditLine, type AuditLine } from '../audit/audit-record.js';

/** What a rewrite of the audit file changed. */
export interface AuditRewrite {
  /** Lines whose `user` (or approval `admin`) became the pseudonym. */
  pseudonymised: number;
  /** Run lines of purged threads whose file names became pseudonyms. */
  fileNamesErased?: number;
  /** Lines older than the cutoff, removed. */
  dropped: number;
  /** The pseudonym used (the same on every line of the user, so they stay linkable to each other only). */
  pseudonym?: string;
}

/**
 * A random pseudonym. Not a hash of the id: platform user ids are short and guessable, so a hash would be
 * reversed by hashing the workspace's member list.
 */
export function newPseudonym(): string {
  return `erased-${randomBytes(8).toString('hex')}`;
}

/** What a rewrite of an audit file erases or drops. */
export interface RewriteOptions {
  /** A purged user: their id becomes `pseudonym`. */
  user?: string;
  /** Lines older than this (epoch ms) are removed. */
  dropBeforeMs?: number;
  /** @defaultValue a new one ({@link newPseudonym}) */
  pseudonym?: string;
  /** Purged threads, by {@link threadHash}: the names of their run lines' files become pseudonyms. */
  threadHashes?: ReadonlySet<string>;
  /** File name → pseudonym so far, so a name gets the same one across lines and files. @defaultValue a new map */
  fileNames?: Map<string, string>;
}

/**
 * Rewrites the audit file (THREADLAB_AUDIT_LOG when it is a path): lines of `user` keep everything but their
 * identity, which becomes a pseudonym with `pseudonym: true` (the format's rule, audit-record.ts), run lines
 * of purged threads keep their files' sizes but not their names, which become pseudonyms the same way, and lines
 * older than `dropBeforeMs` are removed (THREADLAB_RETENTION_AUDIT). Lines that are not audit records are kept
 * as they are. The new file (same mode) replaces the old by rename, after copying lines appended while it was
 * written; a file rotated meanwhile is read again.
 */
export async function rewriteAuditFile(path: string, options: RewriteOptions): Promise<AuditRewrite> {
  // A file rotated while it was read is read again (it is then the newer file the path names).
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const result = await rewriteOnce(path, options);
    if (result) return result;
  }
  throw new Error(`${path} was rotated three times while it was rewritten; run again when the bot is less busy`);
}

/**
 * The line with every place `user` is named replaced by the pseudonym: the person the event was for
 * (`user`), and an admin who decided an approval (`admin`). Undefined when the line does not name them.
 */
function erase(record: AuditLine, user: string, pseudonym: string): AuditLine | undefined {
  const asUser = record.user === user;
  const asAdmin = record.kind === 'approval' && record.admin === user;
  if (!asUser && !asAdmin) return undefined;
  return {
    ...record,
    ...(asUser ? { user: pseudonym } : {}),
    ...(asAdmin ? { admin: pseudonym } : {}),
    // A feedback comment is the person's own words: erased with their identity.
    ...(asUser && record.kind === 'feedback' && record.comment ? { comment: null } : {}),
    pseudonym: true,
  };
}

/**
 * The run line of a purged thread with its files' names replaced by pseudonyms (the names are chosen by the
 * thread's code and its users, so they may say what the purged data was). Undefined for any other line.
 */
function eraseFileNames(
  record: AuditLine,
  threads: ReadonlySet<string>,
  names: Map<string, string>,
): AuditLine | undefined {
  if (record.kind !== 'run' || !threads.has(record.threadHash)) return undefined;
  const listed = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  if (listed(record.filesIn).length === 0 && listed(record.filesOut).length === 0) return undefined;
  const rename = (f: unknown): unknown => {
    if (typeof f !== 'object' || f === null || typeof (f as { name?: unknown }).name !== 'string') return f;
    const name = (f as { name: string }).name;
    const pseudonym = names.get(name) ?? newPseudonym();
    names.set(name, pseudonym);
    return { ...f, name: pseudonym };
  };
  return {
    ...record,
    filesIn: listed(record.filesIn).map(rename),
    filesOut: listed(record.filesOut).map(rename),
    pseudonym: true,
  };
}

async function rewriteOnce(path: string, options: RewriteOptions): Promise<AuditRewrite | undefined> {
  const result: AuditRewrite = { pseudonymised: 0, dropped: 0 };
  const before = await stat(path).catch(() => undefined);
  if (!before || before.size === 0) return result;
  const pseudonym = options.user === undefined ? undefined : (options.pseudonym ?? newPseudonym());
  const tmp = `${path}.${randomUUID()}.tmp`;
  const out = await open(tmp, 'wx', before.mode & 0o777);
  try {
    const lines = createInterface({ input: createReadStream(path, { end: before.size - 1 }), crlfDelay: Infinity });
    for await (const line of lines) {
      const record = line.trim() === '' ? undefined : parseAuditLine(line);
      if (record && options.dropBeforeMs !== undefined && Date.parse(record.ts) < options.dropBeforeMs) {
        result.dropped += 1;
        continue;
      }
      const asUser =
        record && pseudonym && options.user !== undefined ? erase(record, options.user, pseudonym) : undefined;
      const asThread =
        record && options.threadHashes
          ? eraseFileNames(asUser ?? record, options.threadHashes, options.fileNames ?? new Map())
          : undefined;
      const erased = asThread ?? asUser;
      if (asUser) result.pseudonymised += 1;
      if (asThread) result.fileNamesErased = (result.fileNamesErased ?? 0) + 1;
      if (erased) {
        await out.write(`${JSON.stringify(erased)}\n`);
        continue;
      }
      if (line !== '') await out.write(`${line}\n`);
    }
    await out.close();
    if (!finishSync({ path, tmp, ino: before.ino, from: before.size })) {
      await rm(tmp, { force: true });
      return undefined;
    }
  } catch (err) {
    await out.close().catch(() => undefined);
    await rm(tmp, { force: true });
    throw err;
  }
  return pseudonym ? { ...result, pseudonym } : result;
}

/**
 * Copies what was appended to `path` since `from` into `tmp` and renames `tmp` over `path`, all synchronously:
 * the bot's audit writer (FileAuditLog) appends synchronously on this same thread, so no line can land in the
 * old file between the copy and the rename, and its next write sees the new inode and reopens. False, with
 * nothing changed, when `path` is no longer the file read (rotated meanwhile): the rewrite is left for later.
 */
function finishSync(options: { path: string; tmp: string; ino: number; from: number }): boolean {
  const { path, tmp } = options;
  let src: number;
  try {
    src = openSync(path, 'r');
  } catch {
    return false;
  }
  try {
    const now = fstatSync(src);
    if (now.ino !== options.ino) return false;
    copyRange(src, tmp, options.from, now.size);
    renameSync(tmp, path);
    // Another process's writer (one file shared by several processes, which the README advises against) may
    // have appended between the copy and the rename: those bytes are carried over too, after the fact.
    const after = fstatSync(src).size;
    if (after > now.size) copyRange(src, path, now.size, after);
    return true;
  } finally {
    closeSync(src);
  }
}

/** Appends bytes `[from, to)` of the open file `src` to the file at `dest`. */
function copyRange(src: number, dest: string, from: number, to: number): void {
  if (to <= from) return;
  const dst = openSync(dest, 'a');
  try {
    const chunk = Buffer.alloc(64 * 1024);
    for (let at = from; at < to;) {
      const read = readSync(src, chunk, 0, Math.min(chunk.length, to - at), at);
      if (read === 0) break;
      writeSync(dst, chunk, 0, read);
      at += read;
    }
  } finally {
    closeSync(dst);
  }
}

/**
 * Pseudonymises `user` (with one pseudonym across all files) and the file names of the purged `threads` (by
 * hash) in an audit file and its rotated files.
 */
export async function pseudonymiseAudit(
  paths: string[],
  target: { user?: string; threadHashes?: ReadonlySet<string> },
): Promise<AuditRewrite & { files: string[] }> {
  const pseudonym = target.user === undefined ? undefined : newPseudonym();
  const fileNames = new Map<string, string>();
  let pseudonymised = 0;
  let fileNamesErased = 0;
  const files: string[] = [];
  for (const path of paths) {
    if (!(await stat(path).catch(() => undefined))) continue;
    files.push(path);
    const options = { ...target, ...(pseudonym ? { pseudonym } : {}), fileNames };
    const rewrite = await rewriteAuditFile(path, options);
    pseudonymised += rewrite.pseudonymised;
    fileNamesErased += rewrite.fileNamesErased ?? 0;
  }
  return { pseudonymised, fileNamesErased, dropped: 0, ...(pseudonym ? { pseudonym } : {}), files };
}
