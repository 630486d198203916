/** How the figures of an answer are checked (THREADLAB_VERIFY_FIGURES). */
export type VerifyFiguresMode = 'off' | 'mark' | 'ask';

/** A span of the answer to mark, with what its tooltip says. */
export interface FigureMark {
  /** UTF-16 offsets of the figure in the answer's text (`Reply.text` begins with it). */
  start: number;
  end: number;
  /** The figure as written: a surface checks it stands at `start` before marking. */
  text: string;
  found: boolean;
  /** "run 2, line 14", or "not found in any output". */
  title: string;
}

/**
 * The check of an answer's figures against what the turn's runs produced, as data for the reply, the
 * export, the audit line and the eval. It says where a figure came from, not whether the reasoning was right.
 */
export interface AnswerFigures {
  /** Figures checked (at most the finder's limit). */
  checked: number;
  /** Of those, the ones no output holds. */
  notFound: number;
  /** The not-found figures as written, at most {@link MAX_LISTED_NOT_FOUND}. */
  notFoundTexts: string[];
  /** Figures the answer states beyond the limit, not checked. */
  unchecked: number;
  /** The reply's line: "✓ 6 figures checked against run output" or "⚠ 1 figure not found in any output: 12.4 %". */
  line: string;
  /** One per checked figure, in the answer's order. */
  marks: FigureMark[];
  /** True when the model was asked once to compute or remove figures no run printed (`ask`). */
  verificationRound: boolean;
}

/** Not-found figures kept by name on an answer's record. */
export const MAX_LISTED_NOT_FOUND = 20;
