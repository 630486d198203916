import { randomBytes, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rename, rm, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { parseAuditLine } from './audit-record.js';

/** What a rewrite of the audit file changed. */
export interface AuditRewrite {
  /** Lines whose `user` became the pseudonym. */
  pseudonymised: number;
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

/**
 * Rewrites the audit file (THREADLAB_AUDIT_LOG when it is a path): lines of `user` keep everything but their
 * identity, which becomes a pseudonym with `pseudonym: true` (the format's rule, audit-record.ts), and lines
 * older than `dropBeforeMs` are removed (THREADLAB_AUDIT_TTL_DAYS). Lines that are not audit records are kept
 * as they are. The new file replaces the old by rename, after copying lines appended while it was written.
 */
export async function rewriteAuditFile(
  path: string,
  options: { user?: string; dropBeforeMs?: number; pseudonym?: string },
): Promise<AuditRewrite> {
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
      if (record && pseudonym && options.user !== undefined && record.user === options.user) {
        result.pseudonymised += 1;
        await out.write(`${JSON.stringify({ ...record, user: pseudonym, pseudonym: true })}\n`);
        continue;
      }
      if (line !== '') await out.write(`${line}\n`);
    }
    // Lines the bot appended while this ran are carried over as they are (their user is handled next time).
    const now = await stat(path);
    if (now.size > before.size) {
      for await (const chunk of createReadStream(path, { start: before.size })) await out.write(chunk as Buffer);
    }
    await out.close();
    await rename(tmp, path);
  } catch (err) {
    await out.close().catch(() => undefined);
    await rm(tmp, { force: true });
    throw err;
  }
  return pseudonym ? { ...result, pseudonym } : result;
}

/** Pseudonymises `user` in an audit file and its rotated files, with one pseudonym across all of them. */
export async function pseudonymiseAudit(paths: string[], user: string): Promise<AuditRewrite> {
  const pseudonym = newPseudonym();
  let pseudonymised = 0;
  for (const path of paths) pseudonymised += (await rewriteAuditFile(path, { user, pseudonym })).pseudonymised;
  return { pseudonymised, dropped: 0, pseudonym };
}
