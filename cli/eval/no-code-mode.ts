import type { Config } from '../../src/config/index.js';
import { isThreadlabError } from '../../src/domain/errors.js';
import { estimateUsage } from '../../src/interpreter/usage.js';
import type { LlmClient, LlmMessage } from '../../src/ports/llm-client.js';
import { checkAnswer } from './answers.js';
import { failureOf } from './failure.js';
import type { EvalFile } from './files.js';
import type { TaskRun } from './result.js';
import { promptOf, type BuiltTask, type EvalTask } from './task.js';

/** Characters of file contents put in a no-code prompt, all files together. @defaultValue about 15k tokens */
export const DEFAULT_INLINE_CHARS = 60_000;

const SYSTEM =
  'You are a careful data analyst. You cannot run code, use tools or draw charts: answer from the data in the ' +
  'message alone, working it out step by step. Where a question asks for a chart, give the values it would plot.';

export interface NoCodeDeps {
  llm: LlmClient;
  settings: Config['llm'];
  /** Wall-clock limit of the request, in ms (`--timeout`). */
  timeoutMs: number;
  /** Most characters of file contents in the prompt. @defaultValue {@link DEFAULT_INLINE_CHARS} */
  inlineChars: number;
}

/** The files as the prompt shows them, each cut at a line end to its share of `maxChars`. */
export function inlineFiles(files: EvalFile[], maxChars: number): { text: string; truncated: boolean } {
  const share = Math.floor(maxChars / Math.max(1, files.length));
  let truncated = false;
  const parts = files.map((file) => {
    let body = file.text;
    if (body.length > share) {
      const kept = body.slice(0, body.lastIndexOf('\n', share) + 1);
      const left = body.slice(kept.length).split('\n').filter(Boolean).length;
      body = `${kept}[… ${left} more lines not shown]\n`;
      truncated = true;
    }
    return `File ${file.name}:\n\`\`\`\n${body}\`\`\``;
  });
  return { text: parts.join('\n\n'), truncated };
}

/** Asks the model the same question with the files' contents in the message and no tools: one request. */
export async function runWithoutCode(task: EvalTask, built: BuiltTask, deps: NoCodeDeps): Promise<TaskRun> {
  const base = { taskId: task.id, category: task.category, mode: 'no-code' as const };
  const { text: data, truncated } = inlineFiles(built.files, deps.inlineChars);
  const messages: LlmMessage[] = [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: `${data}\n\n${promptOf(built)}` },
  ];
  const startedMs = Date.now();
  const seconds = () => (Date.now() - startedMs) / 1000;
  try {
    const response = await deps.llm.complete({
      messages,
      tools: [],
      ...(deps.settings.temperature !== undefined ? { temperature: deps.settings.temperature } : {}),
      signal: AbortSignal.timeout(deps.timeoutMs),
    });
    const usage =
      response.usage.promptTokens + response.usage.completionTokens > 0
        ? response.usage
        : estimateUsage(messages, response);
    const verdict = checkAnswer(built.expected, response.content ?? response.refusal ?? '');
    const failure = failureOf({
      mode: 'no-code',
      correct: verdict.correct,
      outcome: 'answer',
      runs: 0,
      emptyText: !(response.content ?? response.refusal ?? '').trim(),
      refusal: Boolean(response.refusal?.trim()) && !response.content?.trim(),
    });
    return {
      ...base,
      ...verdict,
      ...(failure ? { failure } : {}),
      outcome: 'answer',
      rounds: 1,
      runs: 0,
      ...usage,
      seconds: seconds(),
      truncated,
    };
  } catch (err) {
    if (!isThreadlabError(err)) throw err;
    const timedOut = err.code === 'cancelled';
    const outcome = timedOut ? 'budget' : 'failed';
    return {
      ...base,
      correct: false,
      outcome,
      failure: failureOf({
        mode: 'no-code',
        correct: false,
        outcome,
        runs: 0,
        errorCode: err.code,
        message: err.message,
        timedOut,
      })!,
      reason: timedOut ? `no answer within ${deps.timeoutMs / 1000} s (--timeout)` : err.message,
      rounds: 1,
      runs: 0,
      promptTokens: 0,
      completionTokens: 0,
      seconds: seconds(),
      truncated,
    };
  }
}
