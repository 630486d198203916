import type { ContentPart, LlmMessage } from '../ports/llm-client.js';
import { cutHeadTail } from './text-cut.js';
import { estimateUsage } from './usage.js';

/** Options of {@link fitToWindow}. */
export interface FitOptions {
  /** The model's context window, in (estimated) tokens. */
  windowTokens: number;
  /** Tokens left free for the reply. */
  reserveTokens: number;
  /**
   * Index of the turn's question, the newest user message: never dropped or cut. Messages before it (after the system
   * prompt) are the thread's history; messages after it are this turn's rounds.
   * @defaultValue the last user message with text content that is not a `[Threadlab]` note
   */
  turnStart?: number;
  /** Fewest characters the current round's tool results each keep. @defaultValue 600 */
  minResultChars?: number;
  /** Characters each tool result of an older round of this turn is cut to first. @defaultValue 1200 */
  olderResultChars?: number;
}

/** What {@link fitToWindow} did to make the messages fit. */
export interface Shortened {
  /** Whole messages left out: history first, then this turn's older rounds. */
  droppedMessages: number;
  /** Tool results (or results messages) cut head and tail. */
  cutResults: number;
  /** Images left out. */
  droppedImages: number;
  tokensBefore: number;
  tokensAfter: number;
  /** False when even the shortest form allowed is over the budget (the system prompt, question and current round). */
  fits: boolean;
}

export interface FitResult {
  messages: LlmMessage[];
  /** Undefined when the messages already fit and are returned unchanged. */
  shortened?: Shortened;
}

const NOTE = '[Threadlab]';
/** Longest excerpt of each left-out question in the summary of dropped history. */
const QUESTION_EXCERPT_CHARS = 100;
/** Longest summary of dropped history. */
const SUMMARY_CHARS = 600;
const IMAGE_GONE = `${NOTE} Chart image(s) left out to fit the model's context window.`;

const tokensOf = (messages: LlmMessage[]): number => estimateUsage(messages, undefined).promptTokens;

const isQuestion = (m: LlmMessage | undefined): boolean =>
  m?.role === 'user' && typeof m.content === 'string' && !m.content.startsWith(NOTE);

function defaultTurnStart(messages: LlmMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i -= 1) if (isQuestion(messages[i])) return i;
  return messages.length - 1;
}

/** Spans [start, end) that go together: a message and the tool results after it (a call never loses its result). */
function units(messages: LlmMessage[], from: number, to: number, startsUnit: (m: LlmMessage) => boolean): number[][] {
  const spans: number[][] = [];
  for (let i = from; i < to; i += 1) {
    const last = spans[spans.length - 1];
    if (!last || (startsUnit(messages[i]!) && messages[i]!.role !== 'tool')) spans.push([i, i + 1]);
    else last[1] = i + 1;
  }
  return spans;
}

/** The summary that stands for dropped history: how much was left out and what the user had asked. */
function historySummary(dropped: LlmMessage[]): string {
  const asked = dropped
    .filter(isQuestion)
    .map((m) => (m.content as string).replace(/\s+/g, ' ').trim())
    .map(
      (text) => `“${text.length > QUESTION_EXCERPT_CHARS ? `${text.slice(0, QUESTION_EXCERPT_CHARS - 1)}…` : text}”`,
    );
  const head = `${NOTE} ${dropped.length} earlier message${dropped.length === 1 ? ' of this thread was' : 's of this thread were'} left out to fit the model's context window.`;
  let summary = head;
  for (const [i, q] of asked.entries()) {
    const next = `${summary}${i === 0 ? ' The user had asked: ' : '; '}${q}`;
    if (next.length > SUMMARY_CHARS) break;
    summary = next;
  }
  return summary;
}

function withoutImages(m: LlmMessage): { message: LlmMessage; dropped: number } {
  if (m.role !== 'user' || !Array.isArray(m.content)) return { message: m, dropped: 0 };
  const dropped = m.content.filter((p) => p.type === 'image').length;
  if (dropped === 0) return { message: m, dropped: 0 };
  const text: ContentPart[] = m.content.filter((p) => p.type === 'text');
  return { message: { role: 'user', content: [...text, { type: 'text', text: IMAGE_GONE }] }, dropped };
}

/** A result is what a run or round brought back: a tool message, or (text protocol) a results note. */
const isResult = (m: LlmMessage): boolean =>
  m.role === 'tool' || (m.role === 'user' && typeof m.content === 'string' && m.content.startsWith(NOTE));

function cutResult(m: LlmMessage, maxChars: number): LlmMessage | undefined {
  if (!isResult(m) || typeof m.content !== 'string' || m.content.length <= maxChars) return undefined;
  return { ...m, content: cutHeadTail(m.content, { maxChars }).text } as LlmMessage;
}

/**
 * Shortens a request's messages to fit `windowTokens - reserveTokens` (estimated), in this order: the thread's
 * oldest history first (dropped whole, oldest first, and summarised in one note naming what the user had asked),
 * long tool results of this turn's older rounds cut head and tail, images of older rounds left out, the current
 * round's results cut (never below `minResultChars`) and its images left out, and last this turn's older rounds
 * dropped whole. Never the system prompt and never the turn's question. A tool call and its results are kept or
 * dropped together, so no result is left without its call. Pure: the input is not changed.
 */
export function fitToWindow(input: LlmMessage[], options: FitOptions): FitResult {
  const budget = options.windowTokens - options.reserveTokens;
  const tokensBefore = tokensOf(input);
  if (tokensBefore <= budget) return { messages: input };
  const minResultChars = options.minResultChars ?? 600;
  const olderResultChars = options.olderResultChars ?? 1200;
  const turnStart = options.turnStart ?? defaultTurnStart(input);
  let sysEnd = 0;
  while (sysEnd < turnStart && input[sysEnd]?.role === 'system') sysEnd += 1;

  const shortened = { droppedMessages: 0, cutResults: 0, droppedImages: 0 };
  let history = input.slice(sysEnd, turnStart);
  const dropped: LlmMessage[] = [];
  const turn = input.slice(turnStart + 1);
  const rounds = units(turn, 0, turn.length, (m) => m.role === 'assistant').map(([a, b]) => turn.slice(a, b));
  const assemble = (): LlmMessage[] => {
    const head = input.slice(0, sysEnd);
    const kept = [...history];
    if (dropped.length > 0) {
      const summary = historySummary(dropped);
      const first = kept[0];
      if (first?.role === 'user' && typeof first.content === 'string')
        kept[0] = { role: 'user', content: `${summary}\n\n${first.content}` };
      else kept.unshift({ role: 'user', content: summary });
    }
    return [...head, ...kept, input[turnStart]!, ...rounds.flat()];
  };
  const over = (): number => tokensOf(assemble()) - budget;

  // 1. History, oldest first; what is kept starts with a question, as trimHistory leaves it.
  const allHistory = history;
  for (const [, end] of units(allHistory, 0, allHistory.length, () => true)) {
    if (over() <= 0) break;
    dropped.push(...history.slice(0, end! - (allHistory.length - history.length)));
    history = allHistory.slice(end);
  }
  while (dropped.length > 0 && history.length > 0 && !isQuestion(history[0])) dropped.push(history.shift()!);
  shortened.droppedMessages += dropped.length;

  const older = (): LlmMessage[][] => rounds.slice(0, -1);
  const current = (): LlmMessage[] => rounds[rounds.length - 1] ?? [];
  const rewrite = (round: LlmMessage[], change: (m: LlmMessage) => LlmMessage | undefined): void => {
    for (const [i, m] of round.entries()) {
      if (over() <= 0) return;
      const next = change(m);
      if (next) round[i] = next;
    }
  };

  // 2. Older rounds' long results, head and tail. 3. Older rounds' images.
  for (const round of older())
    rewrite(round, (m) => {
      const cut = cutResult(m, olderResultChars);
      if (cut) shortened.cutResults += 1;
      return cut;
    });
  const dropImages = (m: LlmMessage): LlmMessage | undefined => {
    const { message, dropped: n } = withoutImages(m);
    shortened.droppedImages += n;
    return n > 0 ? message : undefined;
  };
  for (const round of older()) rewrite(round, dropImages);

  // 4. The current round's results, largest first, to what the budget leaves (never below minResultChars).
  const now = current();
  const largest = now
    .map((m, i) => ({ i, chars: typeof m.content === 'string' && isResult(m) ? m.content.length : 0 }))
    .filter((r) => r.chars > minResultChars)
    .sort((a, b) => b.chars - a.chars);
  for (const { i, chars } of largest) {
    const excess = over();
    if (excess <= 0) break;
    const cut = cutResult(now[i]!, Math.max(minResultChars, chars - excess * 4 - 64));
    if (!cut) continue;
    now[i] = cut;
    shortened.cutResults += 1;
  }
  rewrite(now, dropImages);

  // 5. Last resort: this turn's older rounds, oldest first, whole.
  while (over() > 0 && rounds.length > 1) shortened.droppedMessages += rounds.shift()!.length;

  const messages = assemble();
  const tokensAfter = tokensOf(messages);
  return { messages, shortened: { ...shortened, tokensBefore, tokensAfter, fits: tokensAfter <= budget } };
}
