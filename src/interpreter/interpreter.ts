import type { Config } from '../config/index.js';
import { ThreadlabError } from '../domain/errors.js';
import { languagesOf, type FilePreview, type Language, type SandboxFile } from '../domain/execution.js';
import type { Logger } from '../logger.js';
import type { TurnBudget } from '../ports/budget.js';
import type { LlmClient, LlmMessage } from '../ports/llm-client.js';
import type { Sandbox } from '../ports/sandbox.js';
import type { HistoryEntry, ConversationStore } from '../ports/conversation-store.js';
import { runLoop } from './loop.js';
import { codeEntry, historyToMessages, ThreadMemory } from './memory.js';
import { NOT_CONFIGURED_TEXT } from './not-configured.js';
import { heldPreviews, heldRun } from './held-run.js';
import { runStep } from './run-step.js';
import { ToolProtocolChoice } from './tool-protocol.js';
import { buildSystemPrompt } from './system-prompt.js';
import { cutHeadTail } from './text-cut.js';
import { Turn, type TurnInput, type TurnOptions, type TurnResult } from './turn.js';
import type { ModelMemory } from '../domain/model-memory.js';
import type { DataSources, SourceScope, SourceSummary } from '../ports/data-sources.js';
import { runDirectQuery } from './query/direct-query.js';
import type { SqlFence } from './query/sql-fence.js';

/** Options of {@link Interpreter}. */
export interface InterpreterOptions {
  /** The chat model; without one only direct mode works. */
  llm?: LlmClient;
  sandbox: Sandbox;
  store: ConversationStore;
  settings: Config['llm'];
  /** Wall-clock limit of one run of code, in ms (THREADLAB_SANDBOX_TIMEOUT_MS). */
  sandboxTimeoutMs: number;
  logger: Logger;
  /** How long a thread's memory is kept after its last message, in ms. @defaultValue 7 days */
  memoryTtlMs?: number;
  /** Most data files previewed in the system prompt. @defaultValue 8 */
  maxPreviews?: number;
  /**
   * Time limit of those previews, all files together, in ms (THREADLAB_PREVIEW_TIMEOUT_MS); held against the budgets.
   * @defaultValue 10,000
   */
  previewTimeoutMs?: number;
  /** End a turn at the model's third identical failure; off only for `threadlab bench loops`. @defaultValue true */
  loopBreaker?: boolean;
  /** Read-only SQL data sources (issue 38); a turn may query those its scope may use. */
  sources?: DataSources;
  /** What is learned about each model server and model, shared with the model client. @defaultValue its own */
  models?: ModelMemory;
}

const PREVIEWABLE = /\.(csv|tsv|xlsx|xlsm|xls|json|jsonl|parquet)$/i;
/** Longest user message kept in memory, in characters. */
const MEMORY_TEXT_CHARS = 4000;

/** What the thread remembers of a turn's reply: the text itself, or a short note for a turn that did not finish. */
function rememberedAnswer(outcome: TurnResult['outcome'], text: string): string {
  if (outcome === 'cancelled') return '(The user stopped this turn before an answer.)';
  if (outcome === 'failed') return '(This turn failed at the model server, before an answer.)';
  return cutHeadTail(text, { maxChars: MEMORY_TEXT_CHARS }).text;
}

/**
 * The model loop of a thread: `handle` turns a question into an answer through the LLM when a model
 * is configured; `runDirect` runs code the user sent as is (what a message asks for is decided before,
 * by the core's `intentOf`). Both keep the thread's conversation memory.
 *
 * `handle` never throws for failures of the user's code or of the LLM API (after retries): those end
 * as a TurnResult (`failed` with a clear text). It throws ThreadlabError only for sandbox
 * infrastructure failures, and plain errors for programmer mistakes.
 */
export class Interpreter {
  private readonly options: InterpreterOptions;
  private readonly memory: ThreadMemory;
  /** Native tool calls or fenced blocks, learned per endpoint and model for the process. */
  readonly protocol: ToolProtocolChoice;

  constructor(options: InterpreterOptions) {
    this.options = options;
    this.protocol = new ToolProtocolChoice(options.settings.tools, options.logger, options.models);
    this.memory = new ThreadMemory({
      store: options.store,
      memoryTokens: options.settings.memoryTokens,
      ttlMs: options.memoryTtlMs,
    });
  }

  async handle(input: TurnInput, options: TurnOptions = {}): Promise<TurnResult> {
    const startedMs = Date.now();
    const logger = this.options.logger.child({ thread: input.threadKey });
    const { llm } = this.options;
    if (!llm) {
      logger.info('natural-language message without an LLM configured');
      return {
        outcome: 'not_configured',
        text: NOT_CONFIGURED_TEXT,
        runs: [],
        usage: { promptTokens: 0, completionTokens: 0 },
        durationMs: Date.now() - startedMs,
        direct: false,
      };
    }
    if (options.signal?.aborted) {
      return {
        outcome: 'cancelled',
        text: 'Stopped at your request.',
        runs: [],
        usage: { promptTokens: 0, completionTokens: 0 },
        durationMs: 0,
        model: llm.model,
        direct: false,
      };
    }
    const record = await this.memory.load(input.threadKey);
    const { sources } = this.options;
    const available = sources && options.scope ? sources.list(options.scope) : [];
    const turnSources =
      sources && options.scope && available.length > 0 ? { sources, scope: options.scope, available } : undefined;
    const system = await this.systemPrompt(input, record.trimmedEntries, options, available);
    const uploadedNames = input.uploaded.map((f) => f.path);
    const userText =
      input.text.trim() || (uploadedNames.length > 0 ? 'I uploaded files; take a look.' : '(empty message)');
    const notes = [
      ...(uploadedNames.length > 0 ? [`(Uploaded with this message: ${uploadedNames.join(', ')})`] : []),
      ...(input.viewing ? [`(${input.viewing})`] : []),
    ];
    const user = notes.length > 0 ? `${userText}\n\n${notes.join('\n')}` : userText;
    const messages: LlmMessage[] = [
      { role: 'system', content: system },
      ...historyToMessages(record.history),
      { role: 'user', content: user },
    ];

    // While the model writes its first code, the thread's sandbox gets ready for it (container, variables, data
    // stack); the first run queues behind that. Not awaited: a failure is the run's to report. With approval
    // before running, a person's Run comes first and may never come: nothing is claimed for it meanwhile.
    if (!options.approve)
      this.options.sandbox
        .prepare(input.threadKey)
        .catch((err: unknown) => logger.debug({ err }, 'sandbox prepare failed; the first run will say why'));
    // The tool offers the languages the image has (R and JavaScript where it has them).
    const languages = languagesOf(await this.options.sandbox.environment());
    // The turn's clock starts with the loop: reading memory and previewing files are not the model's time.
    const turn = new Turn({
      threadKey: input.threadKey,
      logger,
      signal: options.signal,
      onProgress: options.onProgress,
      timeoutMs: this.options.settings.turnTimeoutMs,
    });
    const result = await runLoop({
      turn,
      llm,
      languages,
      sandbox: this.options.sandbox,
      settings: this.options.settings,
      sandboxTimeoutMs: this.options.sandboxTimeoutMs,
      messages,
      ...(options.budget ? { budget: options.budget } : {}),
      ...(options.approve ? { approve: options.approve } : {}),
      protocol: this.protocol,
      ...(this.options.loopBreaker === false ? { loopBreaker: false } : {}),
      ...(turnSources ? { sources: turnSources } : {}),
      verify: {
        mode: this.options.settings.verifyFigures,
        userText,
        uploaded: input.uploaded.map((f) => ({ path: f.path, bytes: f.bytes })),
        read: (path) => this.options.sandbox.readFile(input.threadKey, path),
      },
    });
    const nowMs = Date.now();
    const entries: HistoryEntry[] = [
      {
        role: 'user',
        text: cutHeadTail(userText, { maxChars: MEMORY_TEXT_CHARS }).text,
        atMs: startedMs,
        ...(uploadedNames.length > 0 ? { files: uploadedNames } : {}),
      },
      ...result.runs.map((run) => codeEntry(run, nowMs)),
      { role: 'assistant', text: rememberedAnswer(result.outcome, result.text), atMs: nowMs },
    ];
    await this.memory.append(input.threadKey, entries);
    logger.info({ outcome: result.outcome, runs: result.runs.length, usage: result.usage }, 'turn finished');
    return {
      outcome: result.outcome,
      text: result.text,
      runs: result.runs,
      usage: result.usage,
      durationMs: nowMs - startedMs,
      model: llm.model,
      ...(result.thinking ? { thinking: result.thinking } : {}),
      ...(result.figures ? { figures: result.figures } : {}),
      ...(result.behaviour.length > 0 ? { behaviour: result.behaviour } : {}),
      direct: false,
    };
  }

  /**
   * Runs code as is, without an LLM (direct mode, or a platform's `run` command), and records it in
   * the thread's memory so a later question can refer to it. Outcome `answer` with empty text.
   */
  async runDirect(
    direct: {
      threadKey: string;
      language: Language;
      code: string;
      /** The code is another person's (a message run for someone else): its memory record keeps neither code nor output. */
      foreign?: boolean;
    },
    options: TurnOptions = {},
  ): Promise<TurnResult> {
    const startedMs = Date.now();
    // A direct run has the run's time limit only, no turn deadline.
    const turn = new Turn({
      threadKey: direct.threadKey,
      logger: this.options.logger.child({ thread: direct.threadKey }),
      signal: options.signal,
      onProgress: options.onProgress,
    });
    const run = await heldRun(options.budget, this.options.sandboxTimeoutMs, (timeoutMs) =>
      runStep({
        sandbox: this.options.sandbox,
        turn,
        language: direct.language,
        code: direct.code,
        round: 1,
        timeoutMs,
      }),
    );
    if ('refused' in run) {
      return {
        outcome: 'budget',
        text: run.refused,
        runs: [],
        usage: { promptTokens: 0, completionTokens: 0 },
        durationMs: Date.now() - startedMs,
        direct: true,
      };
    }
    await this.memory.append(direct.threadKey, [codeEntry(run, Date.now(), { foreign: direct.foreign === true })]);
    const cancelled = turn.stopReason() === 'cancelled';
    return {
      outcome: cancelled ? 'cancelled' : 'answer',
      text: cancelled ? 'Stopped at your request.' : '',
      runs: [run],
      usage: { promptTokens: 0, completionTokens: 0 },
      durationMs: Date.now() - startedMs,
      direct: true,
    };
  }

  /** The names of the data sources `scope` may use (none without sources). */
  sourceNames(scope: SourceScope): string[] {
    return this.options.sources?.list(scope).map((s) => s.name) ?? [];
  }

  /** An sql fence sent to run as is: the query's result lands as a CSV and a DataFrame, remembered like a run. */
  async queryDirect(
    direct: { threadKey: string; fence: SqlFence; file?: string },
    options: TurnOptions = {},
  ): Promise<TurnResult> {
    const ran = await runDirectQuery(
      {
        sources: this.options.sources,
        sandbox: this.options.sandbox,
        logger: this.options.logger,
        threadKey: direct.threadKey,
        fence: direct.fence,
        ...(direct.file ? { file: direct.file } : {}),
        loadTimeoutMs: this.options.sandboxTimeoutMs,
      },
      options,
    );
    if (ran.runs.length > 0)
      await this.memory.append(
        direct.threadKey,
        ran.runs.map((run) => codeEntry(run, Date.now())),
      );
    return ran;
  }

  private async systemPrompt(
    input: TurnInput,
    trimmedEntries: number,
    { signal, budget }: TurnOptions,
    sources: SourceSummary[],
  ): Promise<string> {
    const { sandbox } = this.options;
    const [environment, files] = await Promise.all([sandbox.environment(), sandbox.listFiles(input.threadKey)]);
    const uploaded = input.uploaded.map((f) => f.path);
    const previews = await this.previews({ threadKey: input.threadKey, files, uploaded, signal, budget });
    return buildSystemPrompt({ environment, files, previews, uploaded, trimmedEntries, sources });
  }

  private async previews(o: {
    threadKey: string;
    files: SandboxFile[];
    uploaded: string[];
    signal?: AbortSignal;
    budget?: TurnBudget;
  }): Promise<FilePreview[]> {
    const { threadKey, files, uploaded } = o;
    const candidates = files
      .filter((f) => PREVIEWABLE.test(f.path) && !f.path.startsWith('.threadlab/'))
      .sort(
        (a, b) => Number(uploaded.includes(b.path)) - Number(uploaded.includes(a.path)) || b.modifiedMs - a.modifiedMs,
      )
      .slice(0, this.options.maxPreviews ?? 8)
      .map((f) => f.path);
    if (candidates.length === 0) return [];
    try {
      const previews = await heldPreviews(o.budget, this.options.sandbox, {
        threadKey,
        paths: candidates,
        timeoutMs: this.options.previewTimeoutMs ?? 10_000,
        signal: o.signal,
      });
      if (!('refused' in previews)) return previews;
      this.options.logger.info({ thread: threadKey }, 'file previews skipped: a daily run-time budget is spent');
      return [];
    } catch (err) {
      // Previews help the model but are not essential: a run will surface a broken sandbox anyway.
      if (!(err instanceof ThreadlabError)) throw err;
      this.options.logger.warn({ err, thread: threadKey }, 'file previews failed; continuing without them');
      return [];
    }
  }
}
