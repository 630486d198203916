import { expect } from 'vitest';
import type { FakeOpenAiServer, RecordedChatRequest } from '../../fakes/fake-openai-server.js';
import { fakeRunCode, fakeSay } from '../../fakes/fake-openai-server.js';

/**
 * Scripted model turns for verified answers (issue 27): the answer's figures are checked against what the
 * turn's runs printed. Every run prints the revenue total (54) and the monthly mean (13.5); 12.4 % is a
 * figure no run prints. Tags are words, never digits, so they add no figure of their own.
 */

/** Prints `54` (line 1) and `13.5` (line 2). */
export const TOTALS_CODE = 'revenue = [10, 14, 9, 21]\nprint(sum(revenue))\nprint(sum(revenue) / len(revenue))';

/** What the model is told in the verification round, as it begins. */
export const ROUND_MESSAGE = '[Threadlab] Your answer states a figure that no run printed: 12.4 %.';

export const FOUND_LINE = (n: number) => `✓ ${n} figure${n === 1 ? '' : 's'} checked against run output`;
export const MISSING_LINE = '⚠ 1 figure not found in any output: 12.4 %';

/** One scripted turn: the answer the surface must show, and the line under it. */
export interface FigureTurn {
  answer: string;
  line: string;
  /** The model's requests of the turn are those from this index on. */
  from: number;
  /** Requests the turn makes: one per scripted reply. */
  requests: number;
}

/**
 * Where a turn's requests begin. The queue starts empty: a turn a failed test scripted but never asked for would
 * otherwise answer this one, and every later case would fail with it.
 */
function begin(llm: FakeOpenAiServer): number {
  llm.discardQueued();
  return llm.requests.length;
}

/** (a) Every figure of the answer comes from the run's output. */
export function scriptFound(llm: FakeOpenAiServer, tag: string): FigureTurn {
  const answer = `${tag}: revenue totals **54**, a mean of 13.5 per month.`;
  const from = begin(llm);
  llm.push(fakeRunCode(TOTALS_CODE), fakeSay(answer));
  return { answer, line: FOUND_LINE(2), from, requests: 2 };
}

/** (b) The answer invents a figure; asked once, the model removes it. */
export function scriptCorrected(llm: FakeOpenAiServer, tag: string): FigureTurn {
  const answer = `${tag}: revenue totals 54; its growth was not computed.`;
  const from = begin(llm);
  llm.push(
    fakeRunCode(TOTALS_CODE),
    fakeSay(`${tag}: revenue totals 54 and grew 12.4 % this quarter.`),
    fakeSay(answer),
  );
  return { answer, line: FOUND_LINE(1), from, requests: 3 };
}

/** (c) The answer invents a figure and the model, asked once, insists on it. */
export function scriptInsisting(llm: FakeOpenAiServer, tag: string): FigureTurn {
  const answer = `${tag}: revenue totals 54 and grew 12.4 % this quarter.`;
  const from = begin(llm);
  llm.push(fakeRunCode(TOTALS_CODE), fakeSay(answer), fakeSay(answer));
  return { answer, line: MISSING_LINE, from, requests: 3 };
}

/**
 * (d) The answer invents a figure in the turn's last round (THREADLAB_LLM_MAX_ROUNDS=3: two runs, then the
 * answer): no round is left to ask in, so the answer is shown marked.
 */
export function scriptSpent(llm: FakeOpenAiServer, tag: string): FigureTurn {
  const answer = `${tag}: revenue totals 54 and grew 12.4 % this quarter.`;
  const from = begin(llm);
  llm.push(fakeRunCode(TOTALS_CODE), fakeRunCode('print("again")'), fakeSay(answer));
  return { answer, line: MISSING_LINE, from, requests: 3 };
}

/** The model's requests of a turn. */
export const turnRequests = (llm: FakeOpenAiServer, turn: FigureTurn): RecordedChatRequest[] =>
  llm.requests.slice(turn.from);

/** The verification-round messages the model received in a turn (its last request holds the whole turn). */
export function roundMessages(llm: FakeOpenAiServer, turn: FigureTurn): string[] {
  const messages = turnRequests(llm, turn).at(-1)?.body.messages ?? [];
  return messages
    .filter((m) => m.role === 'user' && typeof m.content === 'string')
    .map((m) => String(m.content))
    .filter((content) => content.startsWith('[Threadlab] Your answer'));
}

/** Checks the turn asked the model `rounds` verification rounds (0 or 1) and used its whole script. */
export function expectRounds(llm: FakeOpenAiServer, turn: FigureTurn, rounds: 0 | 1): void {
  const asked = roundMessages(llm, turn);
  expect(asked).toHaveLength(rounds);
  if (rounds === 1) expect(asked[0]!.startsWith(ROUND_MESSAGE)).toBe(true);
  // One request per scripted reply: the script is used up and nothing was asked beyond it.
  expect(turnRequests(llm, turn)).toHaveLength(turn.requests);
  expect(llm.remaining).toBe(0);
}
