import { isThreadlabError } from '../domain/errors.js';
import type { BehaviourLog } from '../domain/model-behaviour.js';
import type { Logger } from '../logger.js';
import type { LlmClient, LlmMessage } from '../ports/llm-client.js';
import { fitToWindow } from './context-fit.js';
import { estimateUsage } from './usage.js';

/** Options of {@link ContextGuard}. */
export interface ContextGuardOptions {
  llm: LlmClient;
  /** THREADLAB_LLM_CONTEXT_TOKENS: the window, when the operator set it; the server is then not asked. */
  contextTokens: number | undefined;
  /** Index of the turn's question in the loop's messages (the last of the messages it started with). */
  turnStart: number;
  logger: Logger;
  /** The turn's log of what the model did: `context_shortened` and `context_refused` are noted in it. */
  behaviour: BehaviourLog;
  /** Tokens left for the reply. @defaultValue a quarter of the window, at most 1024 */
  reserveTokens?: number;
}

/**
 * Share of the window the estimate may fill: the estimate counts about four characters a token and servers'
 * tokenizers often count more (JSON, code, other scripts), so the request is fitted with room to spare.
 */
const ESTIMATE_SHARE = 0.9;
/** Share of what was sent that a retry is fitted to when the refusal named no sizes. */
const BLIND_RETRY_SHARE = 0.6;
/** The reply's room when the window is small: a typical round's code or answer. */
const MAX_RESERVE_TOKENS = 1024;

/**
 * Keeps one turn's requests inside the model's context window (issue 37): before each request the messages are
 * fitted to the window (THREADLAB_LLM_CONTEXT_TOKENS, or what the server states), and a context-length refusal is
 * retried once, fitted to the window the refusal names (scaled by how the server's count of the refused request
 * compares with the estimate) or to a fraction of what was sent. It says in the answer when history was shortened,
 * and notes `context_shortened` and `context_refused` in the turn's behaviour log.
 */
export class ContextGuard {
  private windowTokens: number | undefined;
  /** The window in the estimate's tokens, once a refusal showed how the server's count compares. */
  private fitTokens: number | undefined;
  private resolved = false;
  private retried = false;
  private shortenedTo: number | undefined;

  constructor(private readonly o: ContextGuardOptions) {}

  /** The messages to send this round: `messages` as they are, or shortened to fit. `messages` is not changed. */
  async fit(messages: LlmMessage[], signal?: AbortSignal): Promise<LlmMessage[]> {
    if (!this.resolved) {
      this.resolved = true;
      this.windowTokens = this.o.contextTokens ?? (await this.o.llm.contextWindow?.({ signal }));
    }
    const window = this.fitTokens ?? (this.windowTokens ? Math.floor(this.windowTokens * ESTIMATE_SHARE) : undefined);
    if (!window) return messages;
    const fitted = fitToWindow(messages, {
      windowTokens: window,
      reserveTokens: this.o.reserveTokens ?? Math.min(MAX_RESERVE_TOKENS, Math.floor(window / 4)),
      turnStart: this.o.turnStart,
    });
    if (!fitted.shortened) return messages;
    this.o.behaviour.note('context_shortened');
    this.shortenedTo = this.windowTokens ?? window;
    this.o.logger.info(
      { windowTokens: this.windowTokens, fitTokens: window, ...fitted.shortened },
      'request shortened to fit the model context',
    );
    return fitted.messages;
  }

  /**
   * Whether `err` is a context-length refusal to retry: true once per turn, after learning the window from it;
   * false for any other error, and for a second refusal (recorded as `context_refused`: the turn ends with the advice).
   */
  retryAfter(err: unknown, sent: LlmMessage[]): boolean {
    if (!isThreadlabError(err, 'llm_context_exceeded')) return false;
    if (this.retried) {
      this.o.behaviour.note('context_refused');
      return false;
    }
    this.retried = true;
    const stated = typeof err.details?.windowTokens === 'number' ? err.details.windowTokens : undefined;
    const counted = typeof err.details?.promptTokens === 'number' ? err.details.promptTokens : undefined;
    const estimate = estimateUsage(sent, undefined).promptTokens;
    if (stated) this.windowTokens = Math.min(this.windowTokens ?? stated, stated);
    // The estimate's tokens per server token, from the refused request itself; without sizes, a fraction of it.
    this.fitTokens =
      stated && counted
        ? Math.floor(((stated * estimate) / counted) * ESTIMATE_SHARE)
        : stated
          ? Math.floor(Math.min(stated, estimate) * ESTIMATE_SHARE * 0.85)
          : Math.floor(estimate * BLIND_RETRY_SHARE);
    this.o.logger.warn(
      { windowTokens: stated, promptTokens: counted, estimate, fitTokens: this.fitTokens },
      'model server refused the request as too long: shortening it and trying once more',
    );
    return true;
  }

  /** The line the answer ends with when history was shortened, e.g. "…shortened to fit the model's 4,096-token context." */
  noteLine(): string | undefined {
    if (this.shortenedTo === undefined) return undefined;
    return `Earlier messages of this thread were shortened to fit the model's ${this.shortenedTo.toLocaleString('en-US')}-token context.`;
  }

  /** `text` with the note line after it, when there is one. */
  annotate(text: string): string {
    const line = this.noteLine();
    return line ? `${text}\n\n${line}` : text;
  }
}
