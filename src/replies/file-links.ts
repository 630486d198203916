import { findFences } from '../domain/text/fences.js';

/** File links handled in one answer; later ones become plain text without a look-up. */
export const MAX_FILE_LINKS = 20;
/** Longest link destination looked at, in characters; longer ones are left as they are. */
const MAX_TARGET_CHARS = 1024;
/** Longest link text kept, in characters. */
const MAX_LABEL_CHARS = 300;

/** A Markdown link or image in an answer that points into the sandbox (`sandbox:/mnt/data/x` and the like). */
export interface FileLinkMatch {
  /** UTF-16 offsets of the whole link (`![alt](target "title")`) in the text. */
  start: number;
  end: number;
  /** Written as an image (`![…](…)`). */
  image: boolean;
  /** The link's text or the image's alt text, trimmed ('' when it had none). */
  label: string;
  /** The destination as written. */
  target: string;
  /** The file, relative to /mnt/data with `/` separators; absent when refused. */
  path?: string;
  /** Why the destination is not a file of the thread (a path outside /mnt/data, `..`). */
  refused?: string;
  /** Past {@link MAX_FILE_LINKS}: not to be looked up. */
  beyondLimit?: boolean;
}

// [label](dest) or ![alt](dest "title"): dest is <...> or a run without spaces that may hold balanced parentheses.
const LINK_RE =
  /(!?)\[([^\]\n]{0,300})\]\(\s*(<[^>\n]{1,1024}>|(?:[^\s()]|\([^\s()]*\)){1,1024})(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)/g;

/**
 * The links of a Markdown answer that point into the sandbox, the way models trained on ChatGPT write them:
 * `sandbox:/mnt/data/x`, `/mnt/data/x`, `file:///mnt/data/x`, `attachment://x`, and a bare relative name in an
 * image (`![plot](chart.png)`). Links inside code fences and code spans are left alone, as are web links. A
 * `sandbox:` or `file:` link outside /mnt/data, or a path with `..`, comes back refused. After `maxLinks`, links
 * are marked `beyondLimit`.
 */
export function findFileLinks(text: string, o: { maxLinks?: number } = {}): FileLinkMatch[] {
  const maxLinks = o.maxLinks ?? MAX_FILE_LINKS;
  const code = codeRanges(text);
  const out: FileLinkMatch[] = [];
  for (const m of text.matchAll(LINK_RE)) {
    const start = m.index;
    if (inRanges(code, start)) continue;
    const image = m[1] === '!';
    const rawTarget = m[3]!;
    const target = rawTarget.startsWith('<') ? rawTarget.slice(1, -1).trim() : rawTarget;
    if (target.length > MAX_TARGET_CHARS) continue;
    const where = sandboxPath(target, image);
    if (!where) continue;
    const label = m[2]!.trim().slice(0, MAX_LABEL_CHARS);
    out.push({
      start,
      end: start + m[0].length,
      image,
      label,
      target,
      ...where,
      ...(out.length >= maxLinks ? { beyondLimit: true } : {}),
    });
  }
  return out;
}

/**
 * Where a link destination points in the sandbox: `{ path }` relative to /mnt/data, `{ refused }` for a sandbox
 * link that is not a file of the thread, or undefined for a destination that is not the sandbox's (a web link).
 */
export function sandboxPath(target: string, image: boolean): { path: string } | { refused: string } | undefined {
  const decoded = percentDecoded(target);
  let rest: string;
  let scheme = true;
  const lower = decoded.toLowerCase();
  if (lower.startsWith('sandbox:')) rest = decoded.slice('sandbox:'.length);
  else if (lower.startsWith('attachment:')) rest = decoded.slice('attachment:'.length).replace(/^\/\//, '');
  else if (lower.startsWith('file:')) rest = decoded.slice('file:'.length).replace(/^\/\/(localhost)?(?=\/)/i, '');
  else if (decoded.startsWith('/mnt/data')) {
    rest = decoded;
    scheme = false;
  } else if (image && !/^[a-z][a-z0-9+.-]*:|^[/#?]|^\/\//i.test(decoded)) {
    rest = decoded;
    scheme = false;
  } else return undefined;
  let relative: string;
  if (rest.startsWith('/')) {
    if (rest !== '/mnt/data' && !rest.startsWith('/mnt/data/')) {
      if (!scheme) return undefined;
      return { refused: 'only files in /mnt/data can be linked' };
    }
    relative = rest.slice('/mnt/data'.length);
  } else relative = rest;
  return normalised(relative);
}

function normalised(relative: string): { path: string } | { refused: string } {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(relative)) return { refused: 'the path holds control characters or backslashes' };
  const parts = relative.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..')) return { refused: 'paths with ".." are not followed' };
  if (parts.length === 0) return { refused: 'it names a folder, not a file' };
  if (relative.endsWith('/')) return { refused: 'it names a folder, not a file' };
  return { path: parts.join('/') };
}

function percentDecoded(target: string): string {
  if (!target.includes('%')) return target;
  try {
    return decodeURIComponent(target);
  } catch {
    return target;
  }
}

/** Offsets covered by code fences and inline code spans, where links are text, not links. */
function codeRanges(text: string): [number, number][] {
  const ranges: [number, number][] = findFences(text).map((f) => {
    const closeEnd = text.indexOf('\n', f.closeStart);
    return [f.openStart, closeEnd === -1 ? text.length : closeEnd];
  });
  // Code spans: a run of n backticks closed by the next run of exactly n backticks (CommonMark).
  const runRe = /`+/g;
  let m: RegExpExecArray | null;
  while ((m = runRe.exec(text))) {
    if (inRanges(ranges, m.index)) continue;
    const ticks = m[0];
    const closeRe = new RegExp(`(?<!\`)${ticks}(?!\`)`, 'g');
    closeRe.lastIndex = m.index + ticks.length;
    const close = closeRe.exec(text);
    if (!close) continue;
    ranges.push([m.index, close.index + ticks.length]);
    runRe.lastIndex = close.index + ticks.length;
  }
  return ranges;
}

function inRanges(ranges: [number, number][], offset: number): boolean {
  return ranges.some(([a, b]) => offset >= a && offset < b);
}
