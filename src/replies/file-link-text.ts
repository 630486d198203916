import type { ReplyFileLink } from '../domain/reply.js';

/** One replacement of a span of a text. */
export interface SpanEdit {
  start: number;
  end: number;
  replacement: string;
}

/** A text after edits, and where an offset of the old text now stands. */
export interface EditedText {
  text: string;
  /** The new offset of an old offset outside every edited span (inside one: the edit's new start). */
  shift(offset: number): number;
}

/** Applies non-overlapping edits, given in any order; overlapping ones after the first are skipped. */
export function applyEdits(text: string, edits: SpanEdit[]): EditedText {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  const kept: (SpanEdit & { newStart: number })[] = [];
  let out = '';
  let pos = 0;
  for (const edit of sorted) {
    if (edit.start < pos || edit.end < edit.start || edit.end > text.length) continue;
    out += text.slice(pos, edit.start);
    kept.push({ ...edit, newStart: out.length });
    out += edit.replacement;
    pos = edit.end;
  }
  out += text.slice(pos);
  return {
    text: out,
    shift(offset: number): number {
      let delta = 0;
      for (const e of kept) {
        if (offset < e.start) break;
        if (offset < e.end) return e.newStart;
        delta += e.replacement.length - (e.end - e.start);
      }
      return offset + delta;
    },
  };
}

/**
 * Where each link stands in `text`: at its recorded offsets when the text there is still the link's, else at the
 * next place after the previous link where its text is found (notes put above or below a reply move it). A link
 * whose text is gone is left out.
 */
export function locateFileLinks(text: string, links: ReplyFileLink[]): { link: ReplyFileLink; start: number }[] {
  const found: { link: ReplyFileLink; start: number }[] = [];
  let cursor = 0;
  for (const link of [...links].sort((a, b) => a.start - b.start)) {
    let start = link.start >= cursor && text.startsWith(link.text, link.start) ? link.start : -1;
    if (start === -1) start = text.indexOf(link.text, cursor);
    if (start === -1) continue;
    found.push({ link, start });
    cursor = start + link.text.length;
  }
  return found;
}

/**
 * The reply's text with each file link replaced by what `render` makes of it (a surface's own link to the
 * delivered file); links `render` returns undefined for keep their platform-neutral text.
 */
export function renderFileLinks(
  text: string,
  links: ReplyFileLink[] | undefined,
  render: (link: ReplyFileLink) => string | undefined,
): EditedText {
  if (!links?.length) return { text, shift: (offset) => offset };
  const edits: SpanEdit[] = [];
  for (const { link, start } of locateFileLinks(text, links)) {
    const replacement = render(link);
    if (replacement !== undefined) edits.push({ start, end: start + link.text.length, replacement });
  }
  return applyEdits(text, edits);
}

/** Markdown link text with its brackets and backslashes escaped. */
export function escapeLinkText(text: string): string {
  return text.replace(/[\\[\]]/g, (c) => `\\${c}`);
}

/** A file name in a code span, with a longer fence when the name holds backticks. */
export function codeName(name: string): string {
  const longest = Math.max(0, ...[...name.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return longest > 0 ? `${ticks} ${name} ${ticks}` : `${ticks}${name}${ticks}`;
}

/**
 * The platform-neutral words for a link to a file: "Download (`summary.csv`, attached)", "`chart.png` (attached)",
 * "`plot.png` (not found: no run made this file)". The label is left out when it only repeats the name.
 */
export function fileLinkWords(o: { label: string; name: string; status: string }): string {
  const label = o.label.trim();
  const sameAsName = label === '' || label === o.name || label === o.name.split('/').pop();
  const name = codeName(o.name);
  return sameAsName ? `${name} (${o.status})` : `${label} (${name}, ${o.status})`;
}

/** What a chat platform did with a reply's files when it uploaded them. */
export interface UploadOutcome {
  /** Files it attached under another name (zipped to fit the upload limit), by their name in the reply. */
  renamed: Map<string, string>;
  /** Files and images it could not attach, by name, with a few words of why. */
  refused: Map<string, string>;
}

/**
 * The reply's text for a chat platform that attaches files to the message (Slack, Discord): a linked file keeps its
 * words ("`chart.png` (attached)") unless the platform zipped it ("`summary.csv.zip`, attached, zipped to fit")
 * or could not attach it, which the words then say.
 */
export function uploadedFileLinks(text: string, links: ReplyFileLink[] | undefined, outcome: UploadOutcome): string {
  return renderFileLinks(text, links, (link) => {
    const name = link.delivered?.name;
    if (name === undefined) return undefined;
    const refused = outcome.refused.get(name);
    if (refused !== undefined) return fileLinkWords({ label: link.label, name, status: `not attached: ${refused}` });
    const renamed = outcome.renamed.get(name);
    if (renamed !== undefined)
      return fileLinkWords({ label: link.label, name: renamed, status: 'attached, zipped to fit the upload limit' });
    return undefined;
  }).text;
}
