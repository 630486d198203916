import { findFences } from '../domain/text/fences.js';

/** A half-open range of offsets [start, end). */
export interface Range {
  start: number;
  end: number;
}

/** Links carry ids and versions, not claims. A single character class, so it cannot backtrack. */
const URL_RE = /\b(?:https?|ftp|file):\/\/[^\s<>()[\]`]+/g;

/**
 * The parts of a Markdown answer that are not prose: fenced code blocks (fence lines included), inline
 * code spans and links. Numbers there are code or addresses, not claims. Sorted by start, merged where they
 * overlap.
 */
export function codeRanges(text: string): Range[] {
  const ranges: Range[] = [];
  for (const fence of findFences(text)) {
    const nl = text.indexOf('\n', fence.closeStart);
    ranges.push({ start: fence.openStart, end: nl === -1 ? text.length : nl });
  }
  const fenced = [...ranges];
  for (const span of inlineCode(text, fenced)) ranges.push(span);
  for (const m of text.matchAll(URL_RE)) ranges.push({ start: m.index, end: m.index + m[0].length });
  return merge(ranges.sort((a, b) => a.start - b.start));
}

/** Overlapping ranges (a link inside a code span) as one, so a lookup needs only the nearest start. */
function merge(sorted: Range[]): Range[] {
  const merged: Range[] = [];
  for (const r of sorted) {
    const last = merged.at(-1);
    if (last && r.start <= last.end) last.end = Math.max(last.end, r.end);
    else merged.push({ ...r });
  }
  return merged;
}

/**
 * Inline code spans (CommonMark: a run of N backticks closed by the next run of exactly N), outside the
 * fenced blocks. Linear: each backtick run is visited once, and the run lengths waiting for a closer are
 * kept by length, so a text of many unmatched backticks costs no rescans.
 */
function inlineCode(text: string, fenced: Range[]): Range[] {
  const spans: Range[] = [];
  const open = new Map<number, number>();
  let f = 0;
  let i = text.indexOf('`');
  while (i !== -1) {
    while (f < fenced.length && fenced[f]!.end <= i) f++;
    const inFence = f < fenced.length && fenced[f]!.start <= i;
    let j = i;
    while (text[j] === '`') j++;
    const length = j - i;
    if (inFence) {
      i = text.indexOf('`', j);
      continue;
    }
    const opener = open.get(length);
    if (opener !== undefined) {
      spans.push({ start: opener, end: j });
      // Runs opened after this span's opener are inside the code span: they no longer open anything.
      for (const [len, at] of open) if (at >= opener) open.delete(len);
    } else open.set(length, i);
    i = text.indexOf('`', j);
  }
  return spans;
}

/** Whether `offset` falls inside one of `ranges` (sorted, merged). Binary search: many ranges stay cheap. */
export function inRanges(ranges: Range[], offset: number): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  let best = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ranges[mid]!.start <= offset) {
      best = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best >= 0 && ranges[best]!.end > offset;
}
