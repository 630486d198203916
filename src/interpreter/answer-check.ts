import { MAX_LISTED_NOT_FOUND, type AnswerFigures, type VerifyFiguresMode } from '../domain/figures.js';
import { figureMarks, figuresFooter, missing, verifyFigures, type VerifyResult } from '../verify/index.js';
import { runOutputs } from '../verify/run-outputs.js';
import { formatToolResult } from './tool-result.js';
import type { TurnRun } from './turn.js';

/** How a turn's final answer is checked (THREADLAB_VERIFY_FIGURES), and what it is checked against. */
export interface AnswerCheckOptions {
  mode: VerifyFiguresMode;
  /** The user's message: figures it states are the user's own, found there rather than "not found". */
  userText: string;
  /** Files uploaded with the message: an answer about them is checked even when no code ran, and their text counts as a source. */
  uploaded: readonly { path: string; bytes: number }[];
  /** Reads a file of the thread's `/mnt/data` (full outputs, table CSVs, generated text files). */
  read?: (path: string) => Promise<Buffer>;
}

/**
 * The check of a final answer's figures against the turn's outputs, or undefined when it is not checked:
 * the mode is off, or the turn ran no code and had no files (a conceptual question has nothing to check against).
 */
export async function checkAnswer(
  answer: string,
  runs: readonly TurnRun[],
  options: AnswerCheckOptions,
): Promise<VerifyResult | undefined> {
  if (options.mode === 'off' || (runs.length === 0 && options.uploaded.length === 0)) return undefined;
  const outputs = await runOutputs({
    runs,
    uploaded: options.uploaded,
    ...(options.read ? { read: options.read } : {}),
  });
  // What the model was shown of each run (its status line with duration, the files with their sizes) is a source
  // too: the outputs come first, so a figure found in both is located where the run printed it.
  const shown = runs.map((run, i) => ({ run: i + 1, kind: 'result' as const, text: formatToolResult(run.result) }));
  return verifyFigures({
    answer,
    outputs: [{ run: 0, kind: 'message', text: options.userText }, ...outputs.sources, ...shown],
    unreadChars: outputs.unreadChars,
  });
}

/** Whether the check found a figure no output holds. */
export const hasUnfound = (result: VerifyResult): boolean => missing(result).length > 0;

/** The check as the reply, export, audit and eval carry it. */
export function answerFigures(result: VerifyResult, verificationRound: boolean): AnswerFigures {
  const notFound = missing(result).map((c) => c.figure.text);
  return {
    checked: result.checks.length,
    notFound: notFound.length,
    notFoundTexts: notFound.slice(0, MAX_LISTED_NOT_FOUND),
    unchecked: result.figuresUnchecked,
    line: figuresFooter(result),
    marks: figureMarks(result),
    verificationRound,
  };
}
