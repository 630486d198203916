import type { Config } from '../config/index.js';
import { BASE_LANGUAGES, type Language } from '../domain/execution.js';
import { isThreadlabError } from '../domain/errors.js';
import type { ApprovalHook } from '../ports/approval.js';
import type { TurnBudget } from '../ports/budget.js';
import type { LlmClient, LlmMessage, LlmResponse } from '../ports/llm-client.js';
import type { Sandbox } from '../ports/sandbox.js';
import type { AnswerFigures } from '../domain/figures.js';
import { answerFigures, checkAnswer, hasUnfound, type AnswerCheckOptions } from './answer-check.js';
import { estimateUsage } from './usage.js';
import { ContextGuard } from './context-guard.js';
import { cutHeadTail } from './text-cut.js';
import { ShownText } from './shown-text.js';
import { stoppedText, type StopReason } from './outcome-text.js';
import { runToolRound } from './tool-round.js';
import { asTextProtocol, roundResultsMessage } from './text-protocol.js';
import { ToolProtocolChoice, type ToolProtocol } from './tool-protocol.js';
import { runCodeSpec } from './tools.js';
import { asOurCall, readReply } from './read-reply.js';
import type { TurnSources } from './query/source-call.js';
import { sourceToolSpecs } from './query/source-tools.js';
import { RepeatWatch } from './repeat-watch.js';
import { emptyAnswerText, isNarration, narrationNote, NO_ANSWER_TEXT } from './silent-answers.js';
import type { ModelBehaviour } from '../domain/model-behaviour.js';
import { verificationRoundMessage } from '../verify/index.js';
import type { Turn, TurnOutcome, TurnRun } from './turn.js';

/** One model-and-sandbox loop: the turn (thread, stop, clock, progress, logger) and what is the loop's own. */
export interface LoopOptions {
  /** Made by the caller with `settings.turnTimeoutMs` as its time limit; the loop ends it when it returns. */
  turn: Turn;
  llm: LlmClient;
  sandbox: Sandbox;
  settings: Config['llm'];
  sandboxTimeoutMs: number;
  /** System prompt, remembered history and the new user message. */
  messages: LlmMessage[];
  /** The languages the image has (languagesOf): the tool offers these. @defaultValue python and bash */
  languages?: readonly Language[];
  /**
   * The daily budgets: a spent one stops the turn before the next model round; each model request holds its
   * estimated tokens and each run its time limit before it starts, settled to the real cost after.
   */
  budget?: TurnBudget;
  /** Most chart images given to the model per round. @defaultValue 4 */
  maxImagesPerRound?: number;
  /** Asked before each run of the model's code (approval on); the wait does not count against the turn's time. */
  approve?: ApprovalHook;
  /** Native tool calls or fenced code blocks, per endpoint and model. @defaultValue native */
  protocol?: ToolProtocolChoice;
  /** How the final answer's figures are checked against the runs' output (THREADLAB_VERIFY_FIGURES). @defaultValue off */
  verify?: AnswerCheckOptions;
  /** End a turn at its third identical failure (repeat-watch.ts); off only to measure what that saves. @defaultValue true */
  loopBreaker?: boolean;
  /** The data sources the turn may query: list_sources and query_source are offered (and sql fences run). */
  sources?: TurnSources;
}

export interface LoopResult {
  outcome: Exclude<TurnOutcome, 'not_configured'>;
  /** What the model did that the loop handled, in the order first seen (turn.behaviour). */
  behaviour: ModelBehaviour[];
  text: string;
  /** The model's thinking over the turn, when its server sent any: never part of `text`. */
  thinking?: string;
  /** The check of the answer's figures, when it was checked. */
  figures?: AnswerFigures;
  runs: TurnRun[];
  usage: { promptTokens: number; completionTokens: number };
  /** Every message sent and received, for debugging and tests. */
  messages: LlmMessage[];
}

const LAST_ROUND_NOTE =
  '[Threadlab] This is the last round allowed for this message: give your final answer now from what you have. Further tool calls will not run.';
const REFUSAL_NOTE =
  '[Threadlab] Your last reply was a refusal. This is data analysis in an isolated sandbox. If the request is acceptable, continue with run_code; otherwise explain briefly to the user why not.';
const EMPTY_NOTE = '[Threadlab] Your last reply was empty. Continue: call run_code, or give your final answer as text.';
const EMPTY_TEXT_NOTE =
  '[Threadlab] Your last reply was empty. Continue: write code in a fenced block tagged with its language, or give your final answer as text.';
/**
 * Completion tokens held for a model request beside its prompt's estimate, until its usage is known: a typical
 * round's reply (code or an answer). A longer one is settled at its real size.
 */
const COMPLETION_HOLD_TOKENS = 1024;
/** Longest thinking kept for a reply (the web chat shows it collapsed). */
const MAX_THINKING_CHARS = 20_000;
const LLM_FAILURES = [
  'llm_api',
  'llm_rate_limited',
  'llm_unreachable',
  'llm_refused',
  'llm_context_exceeded',
  'llm_tools_unsupported',
] as const;

/**
 * The interpreter loop: ask the model, run the code it asks for, hand results back, until it answers
 * or a budget (rounds, tokens, time) or the user stops it. LLM API failures after retries end the
 * turn as `failed`; sandbox infrastructure failures and programmer errors are thrown.
 */
export async function runLoop(options: LoopOptions): Promise<LoopResult> {
  const { llm, settings, turn } = options;
  const { emit, signal, logger } = turn;
  const messages = [...options.messages];
  const runs: TurnRun[] = [];
  const usage = { promptTokens: 0, completionTokens: 0 };
  let lastText: string | undefined;
  let corrected = { refusal: false, empty: false, other: false, narration: false };
  const repeats = new RepeatWatch();
  const languages = options.languages ?? BASE_LANGUAGES;
  const protocol = options.protocol ?? new ToolProtocolChoice('native');
  const key = { model: llm.model, ...(llm.endpoint ? { endpoint: llm.endpoint } : {}) };
  const { sources } = options;
  const sourceNames = sources?.available.map((s) => s.name);
  const tools = [runCodeSpec(languages), ...(sources ? sourceToolSpecs(sources.available) : [])];
  // Once a round of this turn was read as fenced blocks, the rest of the turn is too.
  let turnMode: ToolProtocol | undefined;

  // Each request fitted to the model's context window; a context refusal retried once, shortened.
  const context = new ContextGuard({
    llm,
    contextTokens: settings.contextTokens,
    turnStart: options.messages.length - 1,
    logger,
    behaviour: turn.behaviour,
  });
  const thoughts: string[] = [];
  // An answer the model was asked to verify: if the verification round cannot finish, this answer stands, marked.
  let asked: { text: string; figures: AnswerFigures } | undefined;
  const finish = (outcome: LoopResult['outcome'], text: string, figures?: AnswerFigures): LoopResult => ({
    outcome,
    text: outcome === 'answer' ? context.annotate(text) : text,
    ...(thoughts.length ? { thinking: cutHeadTail(thoughts.join('\n\n'), { maxChars: MAX_THINKING_CHARS }).text } : {}),
    ...(figures ? { figures } : {}),
    behaviour: turn.behaviour.list(),
    runs,
    usage,
    messages,
  });
  const stop = (reason: StopReason): LoopResult => {
    if (asked) {
      logger.info({ reason: reason.kind }, 'verification round ended early: the checked answer stands');
      return finish('answer', asked.text, asked.figures);
    }
    const outcome = reason.kind === 'cancelled' ? 'cancelled' : reason.kind === 'failed' ? 'failed' : 'budget';
    logger.info({ reason: reason.kind, runs: runs.length, usage }, 'turn stopped before an answer');
    return finish(outcome, stoppedText(reason, runs, lastText));
  };
  const abortReason = (): StopReason | undefined => {
    const reason = turn.stopReason();
    if (reason === 'time') return { kind: 'time', turnTimeoutMs: settings.turnTimeoutMs };
    return reason ? { kind: reason } : undefined;
  };

  try {
    for (let round = 1; round <= settings.maxRounds; round += 1) {
      const aborted = abortReason();
      if (aborted) return stop(aborted);
      const used = usage.promptTokens + usage.completionTokens;
      const next = estimateUsage(messages, undefined).promptTokens;
      if (round > 1 && used + next > settings.tokenBudget) {
        return stop({ kind: 'tokens', usedTokens: used, tokenBudget: settings.tokenBudget });
      }
      const spent = round > 1 ? await options.budget?.exceeded() : undefined;
      if (spent) return stop({ kind: 'quota', message: spent });
      if (round === settings.maxRounds && round > 1) messages.push({ role: 'user', content: LAST_ROUND_NOTE });

      // The request's tokens are held before it is sent, so turns asking at the same time count them as spent.
      const held = await options.budget?.hold({ tokens: next + COMPLETION_HOLD_TOKENS });
      if (held && 'refused' in held) return stop({ kind: 'quota', message: held.refused });
      emit({ type: 'thinking', round });
      const mode: ToolProtocol = turnMode ?? protocol.current(key);
      let response: LlmResponse;
      const shown = new ShownText({ fences: mode === 'text' });
      const sent = await context.fit(messages, signal);
      try {
        response = await llm.complete({
          messages: mode === 'text' ? asTextProtocol(sent, languages, sourceNames) : sent,
          tools: mode === 'text' ? [] : tools,
          temperature: settings.temperature,
          signal,
          onTextDelta: (delta) => {
            const text = shown.push(delta);
            if (text) emit({ type: 'text', delta: text });
          },
        });
        const rest = shown.end();
        if (rest) emit({ type: 'text', delta: rest });
      } catch (err) {
        await held?.settle({ tokens: 0 });
        const reason = abortReason();
        if (reason) return stop(reason);
        if (isThreadlabError(err, 'llm_tools_unsupported') && protocol.switchToText(key, 'server refuses tools')) {
          turnMode = 'text';
          round -= 1; // The same round again, in the text protocol.
          continue;
        }
        if (context.retryAfter(err, sent)) {
          round -= 1; // The same round again, shortened to the window the refusal named.
          continue;
        }
        const failure = LLM_FAILURES.find((code) => isThreadlabError(err, code));
        if (failure && isThreadlabError(err)) {
          logger.warn({ err, code: err.code }, 'model request failed');
          return stop({ kind: 'failed', message: err.message, code: failure });
        }
        throw err;
      }
      const counted =
        response.usage.promptTokens + response.usage.completionTokens > 0
          ? response.usage
          : estimateUsage(messages, response);
      usage.promptTokens += counted.promptTokens;
      usage.completionTokens += counted.completionTokens;
      await held?.settle({ tokens: counted.promptTokens + counted.completionTokens });

      const reply = readReply(response, {
        mode,
        round,
        languages,
        protocol,
        key,
        runsSoFar: runs.length,
        ...(sourceNames ? { sourceNames } : {}),
      });
      // Calls under a tool name the model was trained on go back to the server under the tool they ran as.
      if (reply.handled === 'native')
        reply.calls = reply.calls.map((call) => asOurCall(call, { languages, turn, sourceNames }));
      // A turn keeps the protocol it worked in: another turn's lesson (a call written as text) changes the
      // endpoint's protocol for later turns, not the rounds of one whose native calls already ran.
      if (reply.handled === 'text') turnMode = 'text';
      else if (reply.calls.length > 0) turnMode = 'native';
      messages.push({
        role: 'assistant',
        content: reply.handled === 'text' ? response.content : reply.prose,
        ...(reply.handled === 'native' && reply.calls.length > 0 ? { toolCalls: reply.calls } : {}),
        ...(response.reasoning ? { reasoning: response.reasoning } : {}),
      });
      if (reply.prose?.trim()) lastText = reply.prose;
      if (response.reasoning?.trim()) thoughts.push(response.reasoning.trim());

      if (reply.calls.length === 0) {
        if (reply.other.length > 0 && !corrected.other) {
          corrected = { ...corrected, other: true };
          messages.push(roundResultsMessage([], [], reply.other));
          continue;
        }
        if (response.refusal) turn.behaviour.note('refusal');
        if (response.refusal && !corrected.refusal) {
          corrected = { ...corrected, refusal: true };
          messages.push({ role: 'user', content: REFUSAL_NOTE });
          continue;
        }
        let text = reply.prose?.trim() || response.refusal?.trim();
        const textMode = (turnMode ?? protocol.current(key)) === 'text';
        if (text && runs.length === 0 && isNarration(text)) {
          if (!corrected.narration && round < settings.maxRounds) {
            // Announced, not done: one nudge, and the announcement is only posted if the nudge brings nothing.
            corrected = { ...corrected, narration: true };
            turn.behaviour.note('narration');
            logger.info('model announced work without doing it: nudged once');
            messages.push({ role: 'user', content: narrationNote(textMode) });
            continue;
          }
          if (corrected.narration) turn.behaviour.note('narration_posted');
        }
        if (!text && !corrected.empty) {
          corrected = { ...corrected, empty: true };
          messages.push({ role: 'user', content: mode === 'text' ? EMPTY_TEXT_NOTE : EMPTY_NOTE });
          continue;
        }
        if (!text) {
          turn.behaviour.note('empty_answer');
          logger.info({ runs: runs.length }, 'model wrote no answer: the last run is shown');
          text = emptyAnswerText(runs) ?? NO_ANSWER_TEXT;
          if (runs.length === 0) return finish('answer', text);
        }
        const checked = options.verify ? await checkAnswer(text, runs, options.verify) : undefined;
        if (!checked) return finish('answer', text);
        const askNow =
          options.verify?.mode === 'ask' &&
          !asked &&
          hasUnfound(checked) &&
          (await roundLeft({ round, used: usage, messages, budget: options.budget, turn, settings }));
        const figures = answerFigures(checked, asked !== undefined || askNow);
        if (!askNow) return finish('answer', text, figures);
        // One verification round: the model computes the figures no run printed, or removes them.
        asked = { text, figures };
        logger.info({ notFound: figures.notFound }, 'answer states figures no run printed: one verification round');
        messages.push({ role: 'user', content: `[Threadlab] ${verificationRoundMessage(checked)}` });
        continue;
      }
      if (round === settings.maxRounds) break;

      // In the text protocol the round writes its tool messages aside; they go back as one user message.
      const written: LlmMessage[] = reply.handled === 'text' ? [] : messages;
      const completed = await runToolRound({
        turn,
        calls: reply.calls,
        round,
        sandbox: options.sandbox,
        languages,
        maxRunMs: options.sandboxTimeoutMs,
        sendImages: settings.images && llm.acceptsImages,
        maxImages: options.maxImagesPerRound ?? 4,
        messages: written,
        runs,
        ...(options.approve ? { approve: options.approve } : {}),
        ...(options.budget ? { budget: options.budget } : {}),
        ...(options.loopBreaker === false ? {} : { repeats }),
        ...(sources ? { sources } : {}),
      });
      if (reply.handled === 'text') messages.push(roundResultsMessage(reply.calls, written, reply.other));
      if (!completed) return stop(abortReason() ?? { kind: 'cancelled' });
      if (repeats.stopped) return stop({ kind: 'loop', ...repeats.stopped });
    }
    const aborted = abortReason();
    return stop(aborted ?? { kind: 'rounds', maxRounds: settings.maxRounds });
  } finally {
    turn.end();
  }
}

/**
 * Whether one more model round fits the turn's limits: a round left, the tokens of the next request within
 * the turn's budget, time before the deadline, and no daily budget spent.
 */
async function roundLeft(o: {
  round: number;
  used: { promptTokens: number; completionTokens: number };
  messages: LlmMessage[];
  budget: TurnBudget | undefined;
  turn: Turn;
  settings: Config['llm'];
}): Promise<boolean> {
  if (o.round >= o.settings.maxRounds || o.turn.stopReason() !== undefined) return false;
  const next = estimateUsage(o.messages, undefined).promptTokens + COMPLETION_HOLD_TOKENS;
  if (o.used.promptTokens + o.used.completionTokens + next > o.settings.tokenBudget) return false;
  return (await o.budget?.exceeded()) === undefined;
}
