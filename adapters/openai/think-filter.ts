const OPEN = /<(think|thinking)>/i;
const CLOSE = /<\/(think|thinking)>/i;
const TAGS = ['<think>', '<thinking>', '</think>', '</thinking>'];
/** Longest tag: a suffix this long may be the start of one and is held back until the next delta. */
const HOLD = Math.max(...TAGS.map((t) => t.length)) - 1;

/** The length of the longest suffix of `text` that is a prefix of a tag (case-insensitive). */
function partialTagAtEnd(text: string): number {
  const tail = text.slice(-HOLD).toLowerCase();
  for (let n = Math.min(HOLD, tail.length); n > 0; n -= 1) {
    const suffix = tail.slice(-n);
    if (TAGS.some((t) => t.startsWith(suffix))) return n;
  }
  return 0;
}

/**
 * Takes a model's thinking out of its content, as it streams: `<think>…</think>` blocks (servers without a
 * reasoning parser, llama.cpp with `--reasoning-format none`, Groq's `raw` format), and content that starts
 * inside a block the chat template opened (only `</think>` arrives). Tags split across deltas are held back
 * until they can be told apart from text.
 */
export class ThinkFilter {
  private inside: boolean;
  private pending = '';
  private visible = '';
  private thought = '';
  /** After a block, the blank lines that separated it from the answer are not shown. */
  private trimStart = false;
  /** Started inside a block the template opens, and no `</think>` has come yet. */
  private implicit: boolean;
  /** A `</think>` came without its `<think>`: the template opened the block (remembered for this server). */
  loneClose = false;

  constructor(startsInside = false) {
    this.inside = startsInside;
    this.implicit = startsInside;
  }

  /** Adds a delta of content; returns the part of it a user may see now. */
  push(delta: string): string {
    let buffer = this.pending + delta;
    this.pending = '';
    let out = '';
    while (buffer) {
      if (this.inside) {
        const close = CLOSE.exec(buffer);
        if (close) {
          this.thought += buffer.slice(0, close.index);
          buffer = buffer.slice(close.index + close[0].length);
          this.inside = false;
          this.implicit = false;
          this.trimStart = true;
          continue;
        }
        const hold = partialTagAtEnd(buffer);
        this.thought += buffer.slice(0, buffer.length - hold);
        this.pending = buffer.slice(buffer.length - hold);
        break;
      }
      const open = OPEN.exec(buffer);
      const close = CLOSE.exec(buffer);
      if (close && (!open || close.index < open.index)) {
        // Everything shown so far was thinking the template had opened.
        this.thought += this.visible + out + buffer.slice(0, close.index);
        this.visible = '';
        out = '';
        this.loneClose = true;
        buffer = buffer.slice(close.index + close[0].length);
        this.trimStart = true;
        continue;
      }
      if (open) {
        out += this.shown(buffer.slice(0, open.index));
        buffer = buffer.slice(open.index + open[0].length);
        this.inside = true;
        continue;
      }
      const hold = partialTagAtEnd(buffer);
      out += this.shown(buffer.slice(0, buffer.length - hold));
      this.pending = buffer.slice(buffer.length - hold);
      break;
    }
    this.visible += out;
    return out;
  }

  /** Ends the content: what was held back is shown (or kept as thinking when inside a block). */
  end(): string {
    const rest = this.pending;
    this.pending = '';
    if (this.implicit) {
      // The template's block was never closed: this answer had no thinking, and all of it is the answer.
      const all = this.shown(this.thought + rest);
      this.thought = '';
      this.inside = false;
      this.implicit = false;
      this.visible += all;
      return all;
    }
    if (this.inside) {
      this.thought += rest;
      return '';
    }
    const out = this.shown(rest);
    this.visible += out;
    return out;
  }

  /** The content without thinking. */
  get answer(): string {
    return this.visible;
  }

  /** The thinking taken out, if any. */
  get reasoning(): string {
    return this.thought.trim();
  }

  private shown(text: string): string {
    if (!this.trimStart) return text;
    const trimmed = text.replace(/^\s+/, '');
    if (trimmed) this.trimStart = false;
    return trimmed;
  }
}

/** Splits whole (non-streamed) content into the answer and the thinking. */
export function splitThinking(
  content: string,
  startsInside = false,
): { answer: string; reasoning: string; loneClose: boolean } {
  const filter = new ThinkFilter(startsInside);
  filter.push(content);
  filter.end();
  return { answer: filter.answer, reasoning: filter.reasoning, loneClose: filter.loneClose };
}
