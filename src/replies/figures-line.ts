import type { Reply } from '../domain/reply.js';

/**
 * The reply's figures line ("✓ 6 figures checked against run output", "⚠ 1 figure not found in any output:
 * 12.4 %") for a surface that shows it within `maxChars` (UTF-16 units), or undefined when the answer was not
 * checked or states no figure. A line longer than `maxChars` ends in "…" (never cut mid-character), so a cut
 * is seen; in practice the line names at most three figures and is far shorter.
 */
export function figuresLine(reply: Pick<Reply, 'figures'>, maxChars: number): string | undefined {
  const line = reply.figures?.line.trim();
  if (!line) return undefined;
  if (line.length <= maxChars) return line;
  let end = Math.max(0, maxChars - 1);
  // Do not split a surrogate pair.
  if (end > 0 && /[\uD800-\uDBFF]/.test(line.charAt(end - 1))) end -= 1;
  return `${line.slice(0, end)}…`;
}
