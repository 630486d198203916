import type { OmittedFile } from '../domain/reply.js';
import type { ReplyBounds } from '../ports/platform-profile.js';
import { formatBytes, formatCount } from '../domain/text/format.js';

export type { ReplyBounds } from '../ports/platform-profile.js';

const MB = 1024 * 1024;

/**
 * Bounds for a platform that shows about 10 files a message: 20 files keep a reply to a handful of messages
 * (text, two or three of files, notes).
 */
export const CHAT_REPLY_BOUNDS: ReplyBounds = {
  maxFiles: 20,
  maxFileBytesTotal: 256 * MB,
  maxOmitted: 10,
  maxListedNamesChars: 600,
};

/** Bounds for a surface that shows files as a list; also the default of a reply built without bounds. */
export const LIST_REPLY_BOUNDS: ReplyBounds = {
  maxFiles: 50,
  maxFileBytesTotal: 512 * MB,
  maxOmitted: 20,
  maxListedNamesChars: 1500,
};

/**
 * One line about files that were not attached because the reply reached its bound: how many, where they are,
 * and as many names as fit in `maxChars`.
 */
export function moreFilesLine(paths: string[], o: { maxFiles: number; maxChars: number }): string {
  const names: string[] = [];
  let used = 0;
  for (const path of paths) {
    const shown = `\`${path.length > 80 ? `${path.slice(0, 79)}…` : path}\``;
    if (used + shown.length + 2 > o.maxChars) break;
    names.push(shown);
    used += shown.length + 2;
  }
  const rest = paths.length - names.length;
  const list = names.join(', ') + (rest > 0 ? `${names.length > 0 ? ' ' : ''}and ${formatCount(rest)} more` : '');
  return (
    `_${formatCount(paths.length)} more file${paths.length === 1 ? ' is' : 's are'} in \`/mnt/data\` but not attached ` +
    `(at most ${formatCount(o.maxFiles)} files per reply): ${list}. Ask me to zip them or to pick the ones you need._`
  );
}

/** At most `max` notes: the first `max - 1` as they are, and one that counts the rest. */
export function boundOmitted(omitted: OmittedFile[], max: number): OmittedFile[] {
  if (omitted.length <= max) return omitted;
  const kept = omitted.slice(0, Math.max(0, max - 1));
  const rest = omitted.slice(kept.length);
  const bytes = rest.reduce((n, o) => n + o.bytes, 0);
  const names = rest
    .slice(0, 5)
    .map((o) => o.name)
    .join(', ');
  kept.push({
    name: `${formatCount(rest.length)} more files`,
    bytes,
    reason: `${formatBytes(bytes)} in all, not attached for the reasons above or similar (${names}${rest.length > 5 ? ', …' : ''}); they are in /mnt/data`,
  });
  return kept;
}
