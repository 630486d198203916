import { fenceAt, findFences, type FenceSpan } from '../domain/text/fences.js';

export interface SplitOptions {
  /** Longest chunk, fences added by the split included. At least 16. */
  maxChars: number;
}

/** One chunk of a split: `body` is a slice of the original, `reopen`/`close` are fence lines the split added. */
export interface SplitChunk {
  reopen: string;
  body: string;
  close: string;
}

/** A boundary this close to the chunk's start is only used if nothing better exists, to avoid tiny chunks. */
const MIN_FILL_RATIO = 0.5;
const MIN_MAX_CHARS = 16;

/**
 * Splits markdown for a platform's message limit, at the safest boundary that fits: a paragraph, then a line,
 * then a word, then anywhere (never inside a surrogate pair). A chunk that ends inside a fenced code block
 * gets the fence closed, and the next chunk reopens it with the same language. Every chunk is at most
 * `maxChars` long; the chunks' bodies concatenate to the original text exactly.
 */
export function splitMessage(text: string, options: SplitOptions): string[] {
  return planSplit(text, options).map((c) => c.reopen + c.body + c.close);
}

/** The split of {@link splitMessage} with the added fence lines kept apart from the original text. */
export function planSplit(text: string, options: SplitOptions): SplitChunk[] {
  const { maxChars } = options;
  if (!Number.isInteger(maxChars) || maxChars < MIN_MAX_CHARS) {
    throw new RangeError(`maxChars must be an integer of at least ${MIN_MAX_CHARS}, got ${maxChars}`);
  }
  if (text.length <= maxChars) return [{ reopen: '', body: text, close: '' }];
  const spans = findFences(text);
  const chunks: SplitChunk[] = [];
  let pos = 0;
  while (pos < text.length) {
    const openSpan = fenceAt(spans, pos);
    const reopen = openSpan ? reopenLine(openSpan, maxChars) : '';
    let budget = maxChars - reopen.length;
    for (;;) {
      const end = text.length - pos <= budget ? text.length : chooseCut(text, { pos, budget, spans });
      const closeSpan = end < text.length ? fenceAt(spans, end) : undefined;
      const close = closeSpan ? (text[end - 1] === '\n' ? '' : '\n') + closeSpan.marker : '';
      if (reopen.length + (end - pos) + close.length <= maxChars || budget <= 1) {
        chunks.push({ reopen, body: text.slice(pos, end), close });
        pos = end;
        break;
      }
      budget = Math.max(1, maxChars - reopen.length - close.length);
    }
  }
  return chunks;
}

function reopenLine(span: FenceSpan, maxChars: number): string {
  // A very long info string would eat the chunk; the marker alone still reopens the block.
  return span.openLine.length + 1 <= maxChars / 4 ? `${span.openLine}\n` : `${span.marker}\n`;
}

function chooseCut(text: string, at: { pos: number; budget: number; spans: FenceSpan[] }): number {
  const { pos, budget, spans } = at;
  const limit = pos + budget;
  const window = text.slice(pos, limit);
  const candidates = [
    lastAfter(window, '\n\n'),
    lastAfter(window, '\n'),
    Math.max(lastAfter(window, ' '), lastAfter(window, '\t')),
  ].map((c) => (c > 0 ? pos + c : -1));
  const minFill = pos + Math.floor(budget * MIN_FILL_RATIO);
  let cut = candidates.find((c) => c > minFill) ?? candidates.find((c) => c > pos) ?? hardCut(text, pos, limit);
  cut = avoidEmptyFences(text, { cut, pos, limit, spans });
  return cut;
}

/** Offset within `window` just after the last `sep`, or -1. */
function lastAfter(window: string, sep: string): number {
  const i = window.lastIndexOf(sep);
  return i === -1 ? -1 : i + sep.length;
}

function hardCut(text: string, pos: number, limit: number): number {
  const code = text.charCodeAt(limit - 1);
  const splitsPair = code >= 0xd800 && code <= 0xdbff && limit - 1 > pos;
  return splitsPair ? limit - 1 : limit;
}

/**
 * A cut just before a closing fence would leave the next chunk an empty reopened block, and a cut within
 * or just after an opening fence line would leave this chunk one: move such cuts past the closing line or
 * before the opening line when that still fits (else one code line back, so the next chunk has code).
 */
function avoidEmptyFences(text: string, at: { cut: number; pos: number; limit: number; spans: FenceSpan[] }): number {
  const { cut, pos, limit, spans } = at;
  for (const span of spans) {
    if (cut === span.closeStart && span.closeStart < text.length) {
      const nl = text.indexOf('\n', span.closeStart);
      const after = nl === -1 ? text.length : nl + 1;
      if (after <= limit) return after;
      const previousLine = text.lastIndexOf('\n', span.closeStart - 2) + 1;
      if (previousLine > span.bodyStart && previousLine > pos) return previousLine;
    }
    if (cut > span.openStart && cut <= span.bodyStart && span.openStart > pos) return span.openStart;
  }
  return cut;
}
