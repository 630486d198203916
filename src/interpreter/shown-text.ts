/** Where a tool call written as text begins (see text-tool-calls.ts for the formats). */
const CALL_MARKERS = ['<tool_call>', '[TOOL_CALLS]', '[TOOL_REQUEST]', '<|python_tag|>', '<function=', '<｜tool▁call'];
const FENCE = '```';

/**
 * The part of a streamed reply a user may watch arrive: everything before the first tool call written as text
 * (and, in the text protocol, before the first fenced block: it runs, and is shown as a run). A marker split
 * across deltas is held back until it can be told from text.
 */
export class ShownText {
  private held = '';
  private stopped = false;
  private readonly markers: string[];

  constructor(options: { fences: boolean }) {
    this.markers = options.fences ? [...CALL_MARKERS, FENCE] : CALL_MARKERS;
  }

  push(delta: string): string {
    if (this.stopped) return '';
    const text = this.held + delta;
    this.held = '';
    const at = Math.min(...this.markers.map((m) => text.indexOf(m)).filter((i) => i >= 0));
    if (Number.isFinite(at)) {
      this.stopped = true;
      return text.slice(0, at);
    }
    const hold = this.partialMarkerAtEnd(text);
    this.held = text.slice(text.length - hold);
    return text.slice(0, text.length - hold);
  }

  /** What was held back when the reply ends without a marker. */
  end(): string {
    const rest = this.stopped ? '' : this.held;
    this.held = '';
    return rest;
  }

  private partialMarkerAtEnd(text: string): number {
    for (let n = Math.min(text.length, 16); n > 0; n -= 1) {
      const suffix = text.slice(-n);
      if (this.markers.some((m) => m.startsWith(suffix))) return n;
    }
    return 0;
  }
}
