import { isThreadlabError } from '../domain/errors.js';
import type { Language } from '../domain/execution.js';
import type { ProgressListener } from '../domain/progress.js';
import type { Logger } from '../logger.js';
import { notApprovedText } from '../governance/approval/approval-text.js';
import type { ApprovalHook } from '../ports/approval.js';
import type { ContentPart, LlmMessage, ToolCall } from '../ports/llm-client.js';
import type { Sandbox } from '../ports/sandbox.js';
import { runStep } from './run-step.js';
import { formatToolResult, pngDisplays } from './tool-result.js';
import { parseToolCall } from './tools.js';
import type { TurnRun } from './turn.js';

/** One round of tool calls: what it needs and where it writes. */
export interface ToolRoundOptions {
  calls: ToolCall[];
  round: number;
  sandbox: Sandbox;
  threadKey: string;
  /** The platform user whose message started the turn. */
  user?: string;
  /** The languages the tool offers; a call in another is refused. @defaultValue python and bash */
  languages?: readonly Language[];
  /** Time limit of each run, in ms, computed just before it starts. */
  runTimeoutMs: () => number;
  signal: AbortSignal;
  /** True once the turn was cancelled or ran out of time. */
  isAborted: () => boolean;
  /** Whether chart images go to the model as image parts. */
  sendImages: boolean;
  maxImages: number;
  logger: Logger;
  onProgress?: ProgressListener;
  /** Appended to: a tool message per call, then one user message with the charts. */
  messages: LlmMessage[];
  /** Appended to: each run made. */
  runs: TurnRun[];
  /** Asked before each run when approval is on; code runs only on a `run` decision. */
  approve?: ApprovalHook;
}

const isAbortError = (err: unknown): boolean =>
  isThreadlabError(err, 'cancelled') || (err instanceof Error && err.name === 'AbortError');

/**
 * Runs the model's tool calls in order and writes a tool message for each: the formatted result, or
 * an error text for a malformed or unknown call (nothing runs then). Charts follow as one user
 * message with image parts. Returns false when the turn was aborted before all calls ran.
 */
export async function runToolRound(options: ToolRoundOptions): Promise<boolean> {
  const images: ContentPart[] = [];
  for (const call of options.calls) {
    const parsed = parseToolCall(call, options.languages);
    if (!parsed.ok) {
      options.logger.info({ tool: call.name }, 'model sent an invalid tool call');
      options.messages.push({ role: 'tool', toolCallId: call.id, content: parsed.error });
      continue;
    }
    if (options.isAborted()) return false;
    if (options.approve) {
      const decision = await options
        .approve({ language: parsed.language, code: parsed.code, signal: options.signal })
        .catch((err: unknown) => {
          // The gate rejects only when the turn is stopped while it waits.
          if (options.isAborted()) return undefined;
          throw err;
        });
      if (!decision || options.isAborted()) return false;
      if (decision.kind !== 'run') {
        options.messages.push({ role: 'tool', toolCallId: call.id, content: notApprovedText(decision) });
        continue;
      }
    }
    let run: TurnRun;
    try {
      run = await runStep({
        sandbox: options.sandbox,
        threadKey: options.threadKey,
        ...(options.user ? { user: options.user } : {}),
        language: parsed.language,
        code: parsed.code,
        round: options.round,
        timeoutMs: options.runTimeoutMs(),
        signal: options.signal,
        onProgress: options.onProgress,
      });
    } catch (err) {
      // A sandbox that throws on abort is a stop, not a failure; anything else is infrastructure.
      if (options.isAborted() && isAbortError(err)) return false;
      throw err;
    }
    options.runs.push(run);
    options.messages.push({ role: 'tool', toolCallId: call.id, content: formatToolResult(run.result) });
    for (const display of pngDisplays(run.result)) {
      images.push({ type: 'image', mime: 'image/png', base64: display.data['image/png']! });
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
