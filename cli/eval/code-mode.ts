import type { Config } from '../../src/config/index.js';
import { isThreadlabError, toThreadlabError, type ThreadlabError } from '../../src/domain/errors.js';
import { figureCounts } from '../../src/domain/figures.js';
import { cliThreadKey } from '../../src/domain/thread-key.js';
import { Interpreter } from '../../src/interpreter/index.js';
import type { Logger } from '../../src/logger.js';
import type { LlmClient } from '../../src/ports/llm-client.js';
import type { Sandbox } from '../../src/ports/sandbox.js';
import { MemoryConversationStore } from '../../src/conversations/memory-conversation-store.js';
import { checkAnswer } from './answers.js';
import { failureOf } from './failure.js';
import { figureVerdict, INSTALL_PROBE, parseFigures, READ_PROBE } from './chart-probe.js';
import type { TaskRun } from './result.js';
import { promptOf, type BuiltTask, type EvalTask } from './task.js';

/** What a task needs to run through the bot's own loop. */
export interface CodeModeDeps {
  llm: LlmClient;
  sandbox: Sandbox;
  settings: Config['llm'];
  /** Wall-clock limit of one run of code, in ms (THREADLAB_SANDBOX_TIMEOUT_MS). */
  sandboxTimeoutMs: number;
  /** Wall-clock limit of the task's turn, in ms (`--timeout`). */
  timeoutMs: number;
  logger: Logger;
  /** Names this eval's threads apart from any other run's. */
  runId: string;
}

/**
 * An LlmClient that counts the requests made through it (the turn's rounds) and keeps the last error the server
 * answered with: a failed turn's text says why in words, its code says which failure it was.
 */
function counting(llm: LlmClient): {
  client: LlmClient;
  rounds: () => number;
  lastError: () => ThreadlabError | undefined;
} {
  let rounds = 0;
  let lastError: ThreadlabError | undefined;
  const client: LlmClient = {
    model: llm.model,
    acceptsImages: llm.acceptsImages,
    complete: async (request) => {
      rounds += 1;
      try {
        return await llm.complete(request);
      } catch (err) {
        if (isThreadlabError(err)) lastError = err;
        throw err;
      }
    },
  };
  return { client, rounds: () => rounds, lastError: () => lastError };
}

async function chartVerdict(sandbox: Sandbox, threadKey: string, built: BuiltTask) {
  const read = await sandbox.run(threadKey, { language: 'python', code: READ_PROBE, internal: true });
  return figureVerdict(built.chart!, parseFigures(read.stdout));
}

/**
 * Runs a task as a user would meet it in a chat: a fresh thread, the task's files uploaded into it, the
 * question handled by the same Interpreter the bot uses (its system prompt, file previews, tools and
 * limits) against the real sandbox. The thread is reset afterwards, container and files.
 */
export async function runWithCode(task: EvalTask, built: BuiltTask, deps: CodeModeDeps): Promise<TaskRun> {
  const base = { taskId: task.id, category: task.category, mode: 'code' as const };
  const threadKey = cliThreadKey(`eval-${deps.runId}-${task.id}`);
  const { client, rounds, lastError } = counting(deps.llm);
  const interpreter = new Interpreter({
    llm: client,
    sandbox: deps.sandbox,
    store: new MemoryConversationStore({ sweepIntervalMs: 0 }),
    settings: { ...deps.settings, turnTimeoutMs: deps.timeoutMs },
    sandboxTimeoutMs: deps.sandboxTimeoutMs,
    logger: deps.logger,
  });
  const startedMs = Date.now();
  try {
    const uploaded = [];
    for (const file of built.files) uploaded.push(await deps.sandbox.putFile(threadKey, file.name, file.data));
    if (built.chart) await deps.sandbox.run(threadKey, { language: 'python', code: INSTALL_PROBE, internal: true });
    const result = await interpreter.handle({
      threadKey,
      text: promptOf(built),
      uploaded,
    });
    let verdict = checkAnswer(built.expected, result.text);
    if (verdict.correct && built.chart) {
      const figure = await chartVerdict(deps.sandbox, threadKey, built);
      if (!figure.correct) verdict = { ...verdict, ...figure };
    }
    // A turn that stopped before an answer (rounds, tokens or time ran out; the model API failed) says why.
    const reason =
      result.outcome === 'answer' || verdict.correct ? verdict.reason : `${result.outcome}: ${result.text}`;
    const outcome = result.outcome === 'not_configured' ? 'failed' : result.outcome;
    const error = outcome === 'failed' ? lastError() : undefined;
    const failure = failureOf({
      mode: 'code',
      correct: verdict.correct,
      outcome,
      runs: result.runs.length,
      ...(result.behaviour ? { behaviour: result.behaviour } : {}),
      ...(error ? { errorCode: error.code, message: error.message } : { message: result.text }),
      // The turn's deadline is the task's --timeout: a budget stop that reached it was the time.
      timedOut: result.durationMs >= deps.timeoutMs,
      emptyText: !result.text.trim(),
    });
    return {
      ...base,
      correct: verdict.correct,
      outcome,
      ...(verdict.given !== undefined ? { given: verdict.given } : {}),
      ...(reason !== undefined ? { reason } : {}),
      rounds: rounds(),
      runs: result.runs.length,
      promptTokens: result.usage.promptTokens,
      completionTokens: result.usage.completionTokens,
      seconds: result.durationMs / 1000,
      ...(result.figures ? { figures: figureCounts(result.figures) } : {}),
      ...(failure ? { failure } : {}),
      ...(result.behaviour?.length ? { behaviour: result.behaviour } : {}),
    };
  } catch (err) {
    // The sandbox failed (an infrastructure error, never the model's code): this task has no result.
    const error = toThreadlabError(err);
    deps.logger.warn({ err: error, task: task.id }, 'eval task failed in the sandbox');
    return {
      ...base,
      correct: false,
      outcome: 'error',
      failure: 'error',
      reason: error.message,
      rounds: rounds(),
      runs: 0,
      promptTokens: 0,
      completionTokens: 0,
      seconds: (Date.now() - startedMs) / 1000,
    };
  } finally {
    await deps.sandbox
      .reset(threadKey)
      .catch((err: unknown) => deps.logger.warn({ err, task: task.id }, 'eval thread reset failed'));
  }
}
