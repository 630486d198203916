import { isThreadlabError } from '../domain/errors.js';
import type { Language } from '../domain/execution.js';
import { notApprovedText } from './not-approved.js';
import type { ApprovalHook } from '../ports/approval.js';
import type { TurnBudget } from '../ports/budget.js';
import type { ContentPart, LlmMessage, ToolCall } from '../ports/llm-client.js';
import type { Sandbox } from '../ports/sandbox.js';
import { heldRun } from './held-run.js';
import { runStep } from './run-step.js';
import { formatToolResult, pngDisplays } from './tool-result.js';
import { repeatedFailureNote, type RepeatWatch } from './repeat-watch.js';
import { noteMapped, parseToolCall } from './tools.js';
import type { Turn, TurnRun } from './turn.js';
import { runSourceCall, type TurnSources } from './query/source-call.js';
import { readSourceCall, type SourceCall } from './query/source-tools.js';

/** One round of tool calls within a turn: what is its own, and where it writes. */
export interface ToolRoundOptions {
  turn: Turn;
  calls: ToolCall[];
  round: number;
  sandbox: Sandbox;
  /** The languages the tool offers; a call in another is refused. @defaultValue python and bash */
  languages?: readonly Language[];
  /** Wall-clock limit of one run (THREADLAB_SANDBOX_TIMEOUT_MS), in ms; a run never outlasts the turn either. */
  maxRunMs: number;
  /** Whether chart images go to the model as image parts. */
  sendImages: boolean;
  maxImages: number;
  /** Appended to: a tool message per call, then one user message with the charts. */
  messages: LlmMessage[];
  /** Appended to: each run made. */
  runs: TurnRun[];
  /** Asked before each run when approval is on; code runs only on a `run` decision. The wait stops the turn's clock. */
  approve?: ApprovalHook;
  /** The daily budgets: each run holds its time limit before it starts; with one spent it does not run. */
  budget?: TurnBudget;
  /** The turn's loop breaker: a repeated failure is told to the model; the third one ends the round. */
  repeats?: RepeatWatch;
  /** The data sources the turn may query (list_sources, query_source); unset: those tools do not exist. */
  sources?: TurnSources;
}

/** Shortest time given to a run, in ms, even near the turn's deadline. */
const MIN_RUN_MS = 100;

const isAbortError = (err: unknown): boolean =>
  isThreadlabError(err, 'cancelled') || (err instanceof Error && err.name === 'AbortError');

/** A list_sources or query_source call; a sandbox that throws on abort is a stop, as for runs. */
async function sourceStep(
  options: ToolRoundOptions,
  sources: TurnSources,
  call: SourceCall,
): Promise<{ text: string; run?: TurnRun } | undefined> {
  const { turn } = options;
  const loadTimeoutMs = Math.max(MIN_RUN_MS, Math.min(options.maxRunMs, turn.msLeft()));
  try {
    return await runSourceCall(
      {
        turn,
        sandbox: options.sandbox,
        sources,
        round: options.round,
        loadTimeoutMs,
        ...(options.approve ? { approve: options.approve } : {}),
        ...(options.budget ? { budget: options.budget } : {}),
      },
      call,
    );
  } catch (err) {
    if (turn.stopReason() !== undefined && isAbortError(err)) return undefined;
    throw err;
  }
}

/**
 * Runs the model's tool calls in order and writes a tool message for each: the formatted result, or
 * an error text for a malformed or unknown call (nothing runs then). Charts follow as one user
 * message with image parts. Returns false when the turn was aborted before all calls ran.
 */
export async function runToolRound(options: ToolRoundOptions): Promise<boolean> {
  const { turn } = options;
  const isAborted = () => turn.stopReason() !== undefined;
  const images: ContentPart[] = [];
  for (const call of options.calls) {
    const sourceCall = options.sources
      ? readSourceCall(
          call,
          options.sources.available.map((s) => s.name),
        )
      : undefined;
    if (sourceCall && options.sources) {
      if (isAborted()) return false;
      const done = await sourceStep(options, options.sources, sourceCall);
      if (!done) return false;
      if (done.run) options.runs.push(done.run);
      options.messages.push({ role: 'tool', toolCallId: call.id, content: done.text });
      continue;
    }
    const parsed = parseToolCall(call, options.languages);
    if (!parsed.ok) {
      turn.logger.info({ tool: call.name }, 'model sent an invalid tool call');
      if (parsed.unknownTool) turn.behaviour.note('unknown_tool');
      options.messages.push({ role: 'tool', toolCallId: call.id, content: parsed.error });
      continue;
    }
    // Calls written as text arrive here as the model wrote them (native ones were rewritten by the loop).
    noteMapped(turn, call, parsed);
    if (isAborted()) return false;
    if (options.approve) {
      const { approve } = options;
      const decision = await turn
        .paused(() => approve({ language: parsed.language, code: parsed.code, signal: turn.signal }))
        .catch((err: unknown) => {
          // The gate rejects only when the turn is stopped while it waits.
          if (isAborted()) return undefined;
          throw err;
        });
      if (!decision || isAborted()) return false;
      if (decision.kind !== 'run') {
        options.messages.push({ role: 'tool', toolCallId: call.id, content: notApprovedText(decision) });
        continue;
      }
    }
    let run: TurnRun | { refused: string };
    try {
      run = await heldRun(
        options.budget,
        Math.max(MIN_RUN_MS, Math.min(options.maxRunMs, turn.msLeft())),
        (timeoutMs) =>
          runStep({
            sandbox: options.sandbox,
            turn,
            language: parsed.language,
            code: parsed.code,
            round: options.round,
            timeoutMs,
          }),
      );
    } catch (err) {
      // A sandbox that throws on abort is a stop, not a failure; anything else is infrastructure.
      if (isAborted() && isAbortError(err)) return false;
      throw err;
    }
    if ('refused' in run) {
      // Not run; the loop stops the turn on the spent budget before the model's next round.
      options.messages.push({ role: 'tool', toolCallId: call.id, content: `[Threadlab] Not run: ${run.refused}` });
      continue;
    }
    options.runs.push(run);
    const verdict = options.repeats?.observe(run) ?? { kind: 'new' };
    const note = verdict.kind === 'repeated' ? `\n\n${repeatedFailureNote(verdict.error)}` : '';
    if (verdict.kind !== 'new') {
      turn.behaviour.note('repeated_failure');
      turn.logger.info({ error: verdict.error, times: verdict.times }, 'model repeated a failing run');
    }
    options.messages.push({ role: 'tool', toolCallId: call.id, content: formatToolResult(run.result) + note });
    for (const display of pngDisplays(run.result)) {
      images.push({ type: 'image', mime: 'image/png', base64: display.data['image/png']! });
    }
    if (verdict.kind === 'stop') {
      turn.behaviour.note('loop_stopped');
      break;
    }
  }
  if (images.length > 0 && options.sendImages) {
    const shown = images.slice(0, options.maxImages);
    const more = images.length > shown.length ? ` (${images.length - shown.length} more not shown)` : '';
    options.messages.push({
      role: 'user',
      content: [{ type: 'text', text: `[Threadlab] The chart image(s) your code displayed above${more}:` }, ...shown],
    });
  }
  return true;
}
