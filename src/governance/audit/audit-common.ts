import { parseThreadKey } from '../../domain/thread-key.js';
import type { AuditCommon } from './audit-record.js';
import { boundString, threadHash } from './audit-record.js';
import { currentAuditScope } from './audit-scope.js';

/**
 * The common fields of a line about thread `key` (or no thread), ending now: where from the key,
 * who and which job from the current audit scope, else `fallbackUser`.
 */
export function commonFields(key: string | null, fallbackUser?: string): AuditCommon {
  const scope = currentAuditScope();
  const user = scope?.user ?? fallbackUser ?? null;
  let where: Pick<AuditCommon, 'platform' | 'workspace' | 'channel'> = {
    platform: null,
    workspace: null,
    channel: null,
  };
  if (key !== null) {
    try {
      const ref = parseThreadKey(key);
      where = { platform: ref.platform, workspace: boundString(ref.workspace), channel: boundString(ref.channel) };
    } catch {
      // A key that is not a thread key (a test's or tool's own): the thread field still names it.
    }
  }
  return {
    v: 1,
    ts: new Date().toISOString(),
    user: user === null ? null : boundString(user),
    ...where,
    thread: key === null ? null : boundString(key),
    threadHash: key === null ? '' : threadHash(key),
    job: scope?.job ?? null,
  };
}
