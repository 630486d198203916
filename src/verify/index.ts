/** Verified answers (issue 27): the figures an answer states, found in the turn's run output or not. */
export type { Figure, FigureCheck, FoundAt, OutputSource, VerifyResult } from './figure.js';
export { extractFigures } from './answer-figures.js';
export {
  verifyFigures,
  DEFAULT_MAX_FIGURES,
  DEFAULT_MAX_OUTPUT_CHARS,
  type VerifyFiguresOptions,
} from './verify-figures.js';
export { figuresFooter, figureMarks, missing, verificationRoundMessage, type FigureMark } from './verify-text.js';
