import type { FigureCounts } from '../domain/figures.js';
import type { ExportEntry } from '../ports/conversation-store.js';

const figures = (n: number) => `${n} figure${n === 1 ? '' : 's'}`;

/**
 * What an answer cell says of its figures' check: "Figures: 6 checked against run output, 1 not found: `12.4 %`."
 * The not-found figures are code spans, so nothing the model wrote is Markdown here.
 */
export function figuresNote(counts: FigureCounts): string {
  const parts = [counts.checked === 0 ? 'none to check' : `${counts.checked} checked against run output`];
  if (counts.notFound > 0) {
    const listed = counts.notFoundTexts.map((t) => `\`${t.replace(/`/g, '')}\``).join(', ');
    const more = counts.notFound - counts.notFoundTexts.length;
    parts.push(
      `${counts.notFound} not found in any output${listed ? `: ${listed}` : ''}${more > 0 ? ` and ${more} more` : ''}`,
    );
  }
  if (counts.unchecked > 0) parts.push(`${figures(counts.unchecked)} past the limit not checked`);
  const round = counts.verificationRound
    ? ' The model was asked once to compute or remove the figures no run printed.'
    : '';
  return `_Figures: ${parts.join(', ')}.${round}_`;
}

/** The notebook's totals of the figure checks of its answers (its metadata, `threadlab.figures`). */
export interface FigureTotals {
  /** Answers in the notebook. */
  answers: number;
  /** Of those, answers whose figures were checked. */
  checkedAnswers: number;
  checked: number;
  notFound: number;
  /** Answers with at least one figure no output held. */
  answersWithNotFound: number;
  verificationRounds: number;
}

/** The totals over a log's answer entries; answers recorded without a check count as answers only. */
export function figureTotals(entries: readonly ExportEntry[]): FigureTotals {
  const totals: FigureTotals = {
    answers: 0,
    checkedAnswers: 0,
    checked: 0,
    notFound: 0,
    answersWithNotFound: 0,
    verificationRounds: 0,
  };
  for (const entry of entries) {
    if (entry.kind !== 'answer') continue;
    totals.answers += 1;
    const counts = entry.figures;
    if (!counts) continue;
    totals.checkedAnswers += 1;
    totals.checked += counts.checked;
    totals.notFound += counts.notFound;
    if (counts.notFound > 0) totals.answersWithNotFound += 1;
    if (counts.verificationRound) totals.verificationRounds += 1;
  }
  return totals;
}
