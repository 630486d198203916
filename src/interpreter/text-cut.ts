/** Options of {@link cutHeadTail}. */
export interface CutOptions {
  /** Most characters kept in total (head plus tail). */
  maxChars: number;
  /** Share of `maxChars` kept from the start. @defaultValue 0.6 */
  headShare?: number;
}

/**
 * Keeps the start and the end of a long text and states how much was left out in between, so the
 * model sees both the first lines and the final error or result.
 */
export function cutHeadTail(text: string, options: CutOptions): { text: string; elidedChars: number } {
  if (text.length <= options.maxChars) return { text, elidedChars: 0 };
  const head = Math.floor(options.maxChars * (options.headShare ?? 0.6));
  const tail = options.maxChars - head;
  const elidedChars = text.length - head - tail;
  const marker = `\n[… ${elidedChars} characters elided …]\n`;
  return { text: text.slice(0, head) + marker + text.slice(text.length - tail), elidedChars };
}

/** A rough token count (about four characters a token), good enough for budgets and trimming. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
