import { formatCount } from '../domain/text/format.js';
import type { FigureMark } from '../domain/figures.js';
import type { FigureCheck, FoundAt, VerifyResult } from './figure.js';

export type { FigureMark };

/** Figures named in the footer at most. */
export const DEFAULT_FOOTER_LISTED = 3;
/** Figures named in the verification round's message at most. */
export const DEFAULT_ROUND_LISTED = 20;

const plural = (n: number, one: string, many: string) => `${formatCount(n)} ${n === 1 ? one : many}`;
/** The checked figures no output holds, in the answer's order. */
export const missing = (result: VerifyResult): FigureCheck[] => result.checks.filter((c) => c.found === null);

/** "a, b, c and 2 more": at most `max` named. */
function listed(items: string[], max: number): string {
  const shown = items.slice(0, Math.max(1, max));
  const more = items.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${formatCount(more)} more` : shown.join(', ');
}

/**
 * Where a figure was found, as its tooltip reads: "run 2, line 14"; "out.csv (run 2), line 3" for a file a run
 * wrote; "sales.csv, line 5" for a file uploaded with the message; "stated in your message".
 */
export function foundTitle(at: FoundAt): string {
  if (at.kind === 'message') return 'stated in your message';
  const line = `line ${formatCount(at.line)}`;
  if (at.name === undefined) return `run ${at.run}, ${line}`;
  return at.run === 0 ? `${at.name}, ${line}` : `${at.name} (run ${at.run}), ${line}`;
}

/**
 * The reply's footer: "✓ 6 figures checked against run output", or "⚠ 1 figure not found in any output:
 * 12.4 %" naming up to `maxListed` figures ("and K more"). A limit reached is said, never left out. Empty
 * when the answer states no figure.
 */
export function figuresFooter(result: VerifyResult, options: { maxListed?: number } = {}): string {
  if (result.figuresTotal === 0) return '';
  const notFound = missing(result);
  const head =
    notFound.length === 0
      ? `✓ ${plural(result.checks.length, 'figure', 'figures')} checked against run output`
      : `⚠ ${plural(notFound.length, 'figure', 'figures')} not found in any output: ${listed(
          notFound.map((c) => c.figure.text),
          options.maxListed ?? DEFAULT_FOOTER_LISTED,
        )}`;
  return [head, ...limitNotes(result)].join(' · ');
}

/** What the limits left unchecked, in words; empty when nothing was cut. */
export function limitNotes(result: VerifyResult): string[] {
  const notes: string[] = [];
  if (result.figuresUnchecked > 0)
    notes.push(`${plural(result.figuresUnchecked, 'more figure', 'more figures')} not checked (limit reached)`);
  const unscanned = result.output.totalChars - result.output.scannedChars;
  if (unscanned > 0)
    notes.push(`${plural(unscanned, 'character', 'characters')} of output not scanned (limit reached)`);
  return notes;
}

/** The answer's spans to mark, one per checked figure, in order; each titled with where it was found. */
export function figureMarks(result: VerifyResult): FigureMark[] {
  return result.checks.map(({ figure, found }) => ({
    start: figure.start,
    end: figure.end,
    text: figure.text,
    found: found !== null,
    title: found ? foundTitle(found) : 'not found in any output',
  }));
}

/**
 * The one message of the verification round, naming the figures no run printed (up to `maxListed`), or
 * undefined when every checked figure was found.
 */
export function verificationRoundMessage(
  result: VerifyResult,
  options: { maxListed?: number } = {},
): string | undefined {
  const notFound = missing(result);
  if (notFound.length === 0) return undefined;
  const names = listed(
    notFound.map((c) => c.figure.text),
    options.maxListed ?? DEFAULT_ROUND_LISTED,
  );
  const states = notFound.length === 1 ? 'a figure' : 'figures';
  const them = notFound.length === 1 ? 'it' : 'them';
  return `Your answer states ${states} that no run printed: ${names}. Compute ${them} with code, or remove ${them}; then give the corrected answer.`;
}
