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

/** Longest not-found figure text a record keeps, in characters (a figure is short; a record stays bounded). */
export const MAX_RECORDED_FIGURE_CHARS = 40;

/**
 * An answer's check as records keep it (the export log, the eval): the counts and the not-found figures by name,
 * without the reply's marks and line. The audit trail keeps the counts only (it holds no content).
 */
export interface FigureCounts {
  checked: number;
  notFound: number;
  /** At most {@link MAX_LISTED_NOT_FOUND}, each at most {@link MAX_RECORDED_FIGURE_CHARS} characters. */
  notFoundTexts: string[];
  unchecked: number;
  verificationRound: boolean;
}

/** The counts of a check, its not-found texts bounded. */
export function figureCounts(figures: AnswerFigures): FigureCounts {
  return {
    checked: figures.checked,
    notFound: figures.notFound,
    notFoundTexts: figures.notFoundTexts
      .slice(0, MAX_LISTED_NOT_FOUND)
      .map((t) => (t.length <= MAX_RECORDED_FIGURE_CHARS ? t : `${t.slice(0, MAX_RECORDED_FIGURE_CHARS - 1)}…`)),
    unchecked: figures.unchecked,
    verificationRound: figures.verificationRound,
  };
}
