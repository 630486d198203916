/** A fenced code block of a markdown text, by character offsets. */
export interface FenceSpan {
  /** Offset where the opening fence line starts. */
  openStart: number;
  /** Offset just after the opening fence line's newline (where the code starts). */
  bodyStart: number;
  /** Offset where the closing fence line starts; the text's length when the fence never closes. */
  closeStart: number;
  /** The marker that closes it, e.g. "```" or "~~~~". */
  marker: string;
  /** The opening line without indentation, e.g. "```python". */
  openLine: string;
}

const OPEN_RE = /^ {0,3}(`{3,}|~{3,})([^\n]*)$/;
const CLOSE_RE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

/**
 * Finds the fenced code blocks of a markdown text (CommonMark rules: up to three spaces of indent, three
 * or more backticks or tildes, closed by the same character at least as long, a backtick info string
 * holds no backtick).
 */
export function findFences(text: string): FenceSpan[] {
  const spans: FenceSpan[] = [];
  let open: Omit<FenceSpan, 'closeStart'> | undefined;
  let lineStart = 0;
  while (lineStart <= text.length) {
    const nl = text.indexOf('\n', lineStart);
    const lineEnd = nl === -1 ? text.length : nl;
    const line = text.slice(lineStart, lineEnd).replace(/\r$/, '');
    if (open) {
      const m = CLOSE_RE.exec(line);
      if (m?.[1] && m[1][0] === open.marker[0] && m[1].length >= open.marker.length) {
        spans.push({ ...open, closeStart: lineStart });
        open = undefined;
      }
    } else {
      const m = OPEN_RE.exec(line);
      const marker = m?.[1];
      if (marker && !(marker[0] === '`' && (m[2] ?? '').includes('`'))) {
        open = {
          openStart: lineStart,
          bodyStart: nl === -1 ? text.length : nl + 1,
          marker,
          openLine: line.trimStart(),
        };
      }
    }
    if (nl === -1) break;
    lineStart = nl + 1;
  }
  if (open) spans.push({ ...open, closeStart: text.length });
  return spans;
}

/** The fence a cut at `offset` would fall inside (after its opening line, before its closing line). */
export function fenceAt(spans: FenceSpan[], offset: number): FenceSpan | undefined {
  for (const span of spans) {
    if (span.openStart >= offset) return undefined;
    if (offset >= span.bodyStart && offset <= span.closeStart) return span;
  }
  return undefined;
}
