import type { OmittedFile } from '../domain/reply.js';
import type { Platform } from '../domain/thread-key.js';
import { formatBytes, formatCount } from './format.js';

/**
 * How much one reply may carry. The sandbox decides how many files a run writes, so a reply is bounded here
 * and what is beyond a bound is summed up in one line instead of being posted or dropped.
 */
export interface ReplyBounds {
  /** Generated files read back and attached to one reply; the rest are named in one line of the text. */
  maxFiles: number;
  /** Bytes of generated files read back for one reply (they are held in memory until posted). */
  maxFileBytesTotal: number;
  /** "Not attached" notes listed one by one; the rest are counted in one note. */
  maxOmitted: number;
  /** Names listed in the line about files beyond `maxFiles`, at most this many characters. */
  maxListedNamesChars: number;
}

const MB = 1024 * 1024;

/**
 * Bounds by platform. Slack and Discord show 10 files a message, so 20 files keep a reply to a handful of
 * messages (text, two or three of files, notes); the web chat and the CLI show files as a list.
 */
export const PLATFORM_REPLY_BOUNDS: Record<Platform, ReplyBounds> = {
  slack: { maxFiles: 20, maxFileBytesTotal: 256 * MB, maxOmitted: 10, maxListedNamesChars: 600 },
  discord: { maxFiles: 20, maxFileBytesTotal: 256 * MB, maxOmitted: 10, maxListedNamesChars: 600 },
  web: { maxFiles: 50, maxFileBytesTotal: 512 * MB, maxOmitted: 20, maxListedNamesChars: 1500 },
  cli: { maxFiles: 100, maxFileBytesTotal: 512 * MB, maxOmitted: 20, maxListedNamesChars: 1500 },
};

/** The bounds of a platform's replies. */
export function replyBoundsFor(platform: Platform): ReplyBounds {
  return PLATFORM_REPLY_BOUNDS[platform];
}

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
