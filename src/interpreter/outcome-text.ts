import type { TurnRun } from './turn.js';
import { summarizeRun } from './tool-result.js';

/** Why a turn stopped before the model's final answer. */
export type StopReason =
  | { kind: 'rounds'; maxRounds: number }
  | { kind: 'tokens'; usedTokens: number; tokenBudget: number }
  | { kind: 'time'; turnTimeoutMs: number }
  | { kind: 'cancelled' }
  /** The same code failed the same way `times` times in a row (the loop breaker). */
  | { kind: 'loop'; error: string; times: number }
  /** A daily budget (THREADLAB_BUDGET_*) ran out between rounds; `message` says which and when it resets. */
  | { kind: 'quota'; message: string }
  /** The model server failed or refused; `message` says why and what to change. */
  | { kind: 'failed'; message: string; code: FailureCode };

/** The ThreadlabError codes of a model server failure. */
export type FailureCode =
  'llm_api' | 'llm_rate_limited' | 'llm_unreachable' | 'llm_refused' | 'llm_context_exceeded' | 'llm_tools_unsupported';

/** Failures another try may not have; the others need a setting changed. */
const TRANSIENT: readonly FailureCode[] = ['llm_api', 'llm_rate_limited', 'llm_unreachable'];

function headline(reason: StopReason): string {
  switch (reason.kind) {
    case 'rounds':
      return `I stopped before finishing: this message used all ${reason.maxRounds} model rounds allowed per turn (THREADLAB_LLM_MAX_ROUNDS).`;
    case 'tokens':
      return `I stopped before finishing: this message used about ${reason.usedTokens} tokens of its ${reason.tokenBudget}-token budget (THREADLAB_LLM_TOKEN_BUDGET).`;
    case 'time':
      return `I stopped before finishing: this message ran out of time after ${Math.round(reason.turnTimeoutMs / 1000)} s (THREADLAB_LLM_TURN_TIMEOUT_MS).`;
    case 'cancelled':
      return 'Stopped at your request.';
    case 'loop':
      return `I stopped: the model ran the same code ${reason.times} times and it failed the same way each time (${reason.error}), so more rounds would not have helped.`;
    case 'quota':
      return `I stopped before finishing: ${reason.message}`;
    case 'failed':
      if (reason.code === 'llm_unreachable')
        return `The language model could not be reached, so I could not finish: ${reason.message}`;
      if (
        reason.code === 'llm_refused' ||
        reason.code === 'llm_context_exceeded' ||
        reason.code === 'llm_tools_unsupported'
      )
        return `The language model's server refused the request, so I could not finish. ${reason.message}`;
      return `The language model's server kept failing, so I could not finish: ${reason.message}`;
  }
}

/**
 * The text of a turn that ended without a final answer: why it stopped and what was done so far
 * (each run with its status and a short excerpt), plus the model's last words if it had any.
 */
export function stoppedText(reason: StopReason, runs: TurnRun[], lastModelText: string | undefined): string {
  const parts = [headline(reason)];
  if (runs.length === 0) {
    parts.push('No code had run yet.');
  } else {
    const lines = runs.map((run, i) => {
      const firstLine = run.code.trim().split('\n')[0] ?? '';
      const code = firstLine.length > 80 ? `${firstLine.slice(0, 77)}…` : firstLine;
      return `${i + 1}. ${run.language} \`${code.replace(/`/g, "'")}\` — ${run.result.status}: ${summarizeRun(run.result, 200)}`;
    });
    parts.push(
      `What was done so far (${runs.length} run${runs.length > 1 ? 's' : ''}; files in /mnt/data and variables are kept):\n${lines.join('\n')}`,
    );
  }
  if (lastModelText?.trim()) parts.push(`Last note from the model:\n${lastModelText.trim()}`);
  if (reason.kind === 'loop')
    parts.push(
      'What you could do: check that the data has what the question names (a column or sheet by that exact name), ' +
        'say it more precisely (for example name the column), or try a stronger model (OPENAI_MODEL).',
    );
  else if (reason.kind !== 'cancelled' && reason.kind !== 'failed' && reason.kind !== 'quota')
    parts.push('Send "continue" to pick up from here.');
  if (reason.kind === 'failed' && TRANSIENT.includes(reason.code))
    parts.push('Try again in a moment; if it keeps failing, check OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL.');
  return parts.join('\n\n');
}
