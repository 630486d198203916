import type { ExecutionResult, Language, SandboxFile } from '../domain/execution.js';
import type { AnswerFigures } from '../domain/figures.js';
import { BehaviourLog, type ModelBehaviour } from '../domain/model-behaviour.js';
import type { ProgressListener } from '../domain/progress-event.js';
import type { Logger } from '../logger.js';
import type { TurnBudget } from '../ports/budget.js';
import type { ApprovalHook } from '../ports/approval.js';
import type { SourceScope } from '../ports/data-sources.js';
import type { RunQuery } from '../domain/query.js';

export type { RunQuery } from '../domain/query.js';

/** One user message for the interpreter, after its attachments were put into the sandbox. */
export interface TurnInput {
  threadKey: string;
  text: string;
  /** Files this message added to `/mnt/data`. */
  uploaded: SandboxFile[];
  /** One line of what the user is looking at on their platform (InboundMessage.viewing), told to the model. */
  viewing?: string;
}

export interface TurnOptions {
  /** Cancels the turn: the LLM call is aborted and a running cell is interrupted. */
  signal?: AbortSignal;
  onProgress?: ProgressListener;
  /** The daily budgets: checked between model rounds and charged with tokens and run time. */
  budget?: TurnBudget;
  /** Asked before each run of code the model wrote (THREADLAB_APPROVAL=ask); direct runs never ask. */
  approve?: ApprovalHook;
  /** Who asks and where: the data sources this turn may query are the ones this scope may use. */
  scope?: SourceScope;
}

/** A run made during the turn, with its full result (images and artifacts are read from it). */
export interface TurnRun {
  language: Language;
  code: string;
  result: ExecutionResult;
  /** Set on the run that loaded a data source query's result into the kernel (its code is the loading code). */
  query?: RunQuery;
}

/**
 * How a turn ended. `answer`: the model (or direct mode) finished; `budget`: rounds, tokens or time
 * ran out and `text` says what was done; `cancelled`: the user stopped it; `failed`: the LLM API failed
 * after retries and `text` says so; `not_configured`: natural language without an LLM.
 */
export type TurnOutcome = 'answer' | 'budget' | 'cancelled' | 'failed' | 'not_configured';

export interface TurnResult {
  outcome: TurnOutcome;
  /** Markdown for the user. In direct mode, empty: the run's output is the answer. */
  text: string;
  runs: TurnRun[];
  usage: { promptTokens: number; completionTokens: number };
  durationMs: number;
  model?: string;
  /** The model's thinking, when its server sent any; shown collapsed where a surface has room, never as the answer. */
  thinking?: string;
  /** True when the turn ran a fenced code block as is, without an LLM. */
  direct: boolean;
  /** How the answer's figures were checked against the runs' output (THREADLAB_VERIFY_FIGURES), when they were. */
  figures?: AnswerFigures;
  /** What the model did that the loop noticed and handled (a loop, its own tool names, silence…), in order first seen. */
  behaviour?: ModelBehaviour[];
}

/** What a turn is made from: its thread, its log, the user's stop and its time limit. */
export interface TurnContext {
  threadKey: string;
  /** The turn's logger (a child carrying the thread). */
  logger: Logger;
  /** The user's stop (or the worker's shutdown). */
  signal?: AbortSignal;
  onProgress?: ProgressListener;
  /** Wall-clock limit of the turn, in ms, from now; without it the turn has none (a direct run). */
  timeoutMs?: number;
}

/**
 * One turn as every layer under the interpreter sees it, made once and passed down: its thread, logger
 * and progress, and its clock. `signal` aborts on the user's stop and at the deadline; the deadline moves
 * while the turn waits on a person ({@link Turn.paused}). `end` releases the timer.
 */
export class Turn {
  readonly threadKey: string;
  readonly logger: Logger;
  /** Aborted by the user's stop or by the deadline: the LLM call is aborted and a running cell interrupted. */
  readonly signal: AbortSignal;
  readonly emit: ProgressListener;
  /** The turn's time limit in ms, when it has one. */
  readonly timeoutMs: number | undefined;
  /** What the model did that was noticed and handled during the turn (TurnResult.behaviour). */
  readonly behaviour = new BehaviourLog();
  private readonly stopped: AbortSignal | undefined;
  private readonly timer = new AbortController();
  private deadlineMs: number;
  private timeout: ReturnType<typeof setTimeout> | undefined;

  constructor(context: TurnContext) {
    this.threadKey = context.threadKey;
    this.logger = context.logger;
    this.emit = context.onProgress ?? (() => undefined);
    this.timeoutMs = context.timeoutMs;
    this.stopped = context.signal;
    this.deadlineMs = context.timeoutMs === undefined ? Infinity : Date.now() + context.timeoutMs;
    this.arm();
    this.signal = context.signal ? AbortSignal.any([context.signal, this.timer.signal]) : this.timer.signal;
  }

  /** Why the turn must stop now: the user stopped it, or its time is up; undefined while it may go on. */
  stopReason(): 'cancelled' | 'time' | undefined {
    if (this.stopped?.aborted) return 'cancelled';
    // The clock too, not only the timer: a run capped at the deadline can end a moment before the
    // turn's timer fires, and the turn must not start another model round then.
    if (this.timer.signal.aborted || Date.now() >= this.deadlineMs) return 'time';
    return undefined;
  }

  /** Time left before the deadline, in ms (Infinity without a limit). */
  msLeft(): number {
    return this.deadlineMs - Date.now();
  }

  /** Runs `wait` with the clock stopped: a person reading code is not the turn working. */
  async paused<T>(wait: () => Promise<T>): Promise<T> {
    const startedMs = Date.now();
    this.disarm();
    try {
      return await wait();
    } finally {
      this.deadlineMs += Date.now() - startedMs;
      if (!this.timer.signal.aborted) this.arm();
    }
  }

  /** Releases the deadline's timer; call once the turn is over. */
  end(): void {
    this.disarm();
  }

  private arm(): void {
    if (this.deadlineMs === Infinity) return;
    this.timeout = setTimeout(
      () => this.timer.abort(new Error('turn timeout')),
      Math.max(0, this.deadlineMs - Date.now()),
    );
  }

  private disarm(): void {
    if (this.timeout !== undefined) clearTimeout(this.timeout);
    this.timeout = undefined;
  }
}
