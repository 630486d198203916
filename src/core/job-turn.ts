import type { Config } from '../config/index.js';
import { toThreadlabError } from '../domain/errors.js';
import type { FilePreview, SandboxFile } from '../domain/execution.js';
import type { InboundMessage } from '../domain/messages.js';
import type { ProgressEvent } from '../domain/progress-event.js';
import type { Reply } from '../domain/reply.js';
import { recordTurn, type RecordTurnOptions } from '../export/index.js';
import { heldPreviews } from '../interpreter/held-run.js';
import type { Interpreter } from '../interpreter/interpreter.js';
import type { TurnResult } from '../interpreter/turn.js';
import type { Logger } from '../logger.js';
import type { ThreadlabMetrics } from '../ops/metrics.js';
import type { ArtifactRenderer } from '../ports/artifact-renderer.js';
import type { ConversationStore } from '../ports/conversation-store.js';
import type { Governance, GovernedTurn, TurnGovernance } from '../ports/governance.js';
import type { Job, JobContext } from '../ports/job-queue.js';
import type { PlatformAdapter, ProgressSink } from '../ports/platform-adapter.js';
import type { PlatformProfile } from '../ports/platform-profile.js';
import type { Sandbox } from '../ports/sandbox.js';
import { buildReply } from '../replies/build-reply.js';
import { RenderAhead } from '../replies/render-ahead.js';
import type { Schedules } from '../schedules/schedules.js';
import { storeAttachments } from './attachments.js';
import { rememberUploads, restoreUploads } from './upload-ledger.js';

/** What every job's turn uses: the worker's services, the same for each job. */
export interface JobServices {
  config: Config;
  logger: Logger;
  sandbox: Sandbox;
  store: ConversationStore;
  renderer: ArtifactRenderer;
  interpreter: Interpreter;
  governance: Governance;
  metrics?: Pick<ThreadlabMetrics, 'error' | 'llm'>;
  /** Scheduled reports; unset where the process has none (the command says so). */
  schedules?: Schedules;
}

/** The budgets a turn's work spends: code the user sent spends run time only, a question tokens too. */
export type TurnNeeds = GovernedTurn['needs'];

/**
 * One job as every intent's handler sees it, built once by the worker: the message, its thread and platform, the
 * stop, progress and log, and the steps handlers share (earlier uploads back, attachments in, the turn's budget,
 * its record in the export, its reply). A handler is `(turn, intent) → Reply`; nothing calls back into the worker.
 */
export class JobTurn {
  readonly message: InboundMessage;
  readonly threadKey: string;
  readonly adapter: PlatformAdapter;
  readonly profile: PlatformProfile;
  /** The user's stop, or the worker's shutdown. */
  readonly signal: AbortSignal;
  readonly log: Logger;
  /** Progress of runs and the model, to the platform's live status; figures start rendering for the reply. */
  readonly onProgress: (event: ProgressEvent) => void;
  /** Set by a handler whose run a spent daily budget refused: a schedule counts it. */
  budgetSpent = false;
  private readonly park: JobContext['park'];
  private readonly ahead: RenderAhead;

  constructor(
    readonly services: JobServices,
    o: { job: Job; context: JobContext; adapter: PlatformAdapter; progress: ProgressSink; log: Logger },
  ) {
    this.message = o.job.message;
    this.threadKey = o.job.threadKey;
    this.adapter = o.adapter;
    this.profile = o.adapter.profile;
    this.signal = o.context.signal;
    this.park = o.context.park;
    this.log = o.log;
    this.ahead = new RenderAhead(services.renderer, {
      maxImageDimensionPx: services.config.replies.maxImageDimensionPx,
    });
    this.onProgress = (event) => {
      o.progress.update(event);
      if (event.type === 'display') this.ahead.display(event.display);
    };
  }

  /**
   * The turn's governance: its budgets (refusing when one it needs is spent) and, for a question, the approval
   * hook, whose wait parks the job. Refusals name the usage command as this platform's users type it.
   */
  governed(needs: TurnNeeds, options: { parked?: boolean } = {}): Promise<TurnGovernance> {
    return this.services.governance.forTurn({
      message: this.message,
      threadKey: this.threadKey,
      needs,
      usageCommand: this.profile.commandNames.usage,
      ...(options.parked && this.park ? { park: this.park } : {}),
    });
  }

  /** The turn's daily budgets, for work that spends `needs`. */
  async budget(needs: TurnNeeds): Promise<TurnGovernance['budget']> {
    return (await this.governed(needs)).budget;
  }

  /**
   * Fetches the thread's earlier uploads again when this worker has no live session for it (it took the thread
   * over); returns notes that say what came back and what did not.
   */
  async restore(): Promise<string[]> {
    const { config, sandbox, store } = this.services;
    if (sandbox.isLive(this.threadKey)) return [];
    const again = await restoreUploads({
      store,
      threadKey: this.threadKey,
      adapter: this.adapter,
      sandbox,
      maxBytes: config.sandbox.maxFileBytes,
      signal: this.signal,
    });
    const notes: string[] = [];
    if (again.restored.length)
      notes.push(`_Fetched this thread's uploads again: ${again.restored.map((p) => `\`${p}\``).join(', ')}._`);
    notes.push(...again.problems.map((p) => `⚠️ ${p}`));
    return notes;
  }

  /** Puts a message's attachments (this job's by default) into the sandbox and remembers them; problems are notes. */
  async upload(message: InboundMessage = this.message): Promise<{ files: SandboxFile[]; problems: string[] }> {
    const { config, sandbox, store } = this.services;
    const uploads = await storeAttachments({
      message,
      threadKey: this.threadKey,
      adapter: this.adapter,
      sandbox,
      maxBytes: config.sandbox.maxFileBytes,
      signal: this.signal,
    });
    await rememberUploads({
      store,
      threadKey: this.threadKey,
      stored: uploads.stored,
      ttlMs: config.sandbox.filesTtlMs,
    });
    return { files: uploads.stored.map((s) => s.file), problems: uploads.problems.map((p) => `⚠️ ${p}`) };
  }

  /**
   * Previews of files sent without a question: they run code in the sandbox, so they hold run time like any run.
   * With a run-time budget spent the files stay in `/mnt/data` unpreviewed, and `notes` says why.
   */
  async previewUploads(files: SandboxFile[], notes: string[]): Promise<FilePreview[]> {
    const { config, sandbox } = this.services;
    // No admission: the files are added whatever the budgets say; only the preview holds run time.
    const budget = await this.budget([]);
    const previews = await heldPreviews(budget, sandbox, {
      threadKey: this.threadKey,
      paths: files.map((f) => f.path),
      timeoutMs: config.sandbox.previewTimeoutMs,
      signal: this.signal,
    });
    notes.push(...(budget?.notices ?? []));
    if (!('refused' in previews)) return previews;
    notes.push(`Not previewed: ${previews.refused}`);
    return [];
  }

  /** Adds the exchange to the thread's export log; a failure is a note on the reply, not a lost answer. */
  async recordExport(turn: Omit<RecordTurnOptions, 'store' | 'atMs' | 'threadKey'>): Promise<string[]> {
    try {
      await recordTurn({ ...turn, threadKey: this.threadKey, store: this.services.store, atMs: Date.now() });
      return [];
    } catch (err) {
      this.log.warn({ err: toThreadlabError(err) }, 'could not record for export');
      return ["⚠️ This exchange could not be added to the thread's notebook export (`export`)."];
    }
  }

  /** The model turn's audit line (outcome, spend, figure counts); a turn without a model has none. */
  recordAnswer(turn: TurnResult): void {
    if (turn.outcome === 'not_configured') return;
    this.services.governance.recordAnswer({
      threadKey: this.threadKey,
      userId: this.message.user.id,
      outcome: turn.outcome,
      model: turn.model,
      runs: turn.runs.length,
      usage: turn.usage,
      durationMs: turn.durationMs,
      ...(turn.figures ? { figures: turn.figures } : {}),
    });
  }

  /** The reply of a finished turn, bounded by this platform's profile; its spend and behaviour counted. */
  toReply(turn: TurnResult): Promise<Reply> {
    const { config, sandbox, metrics } = this.services;
    metrics?.llm.tokens({ prompt: turn.usage.promptTokens, completion: turn.usage.completionTokens });
    for (const kind of turn.behaviour ?? []) metrics?.llm.behaviour(kind, turn.model ?? 'unknown');
    return buildReply(turn, {
      sandbox,
      renderer: this.ahead,
      threadKey: this.threadKey,
      limits: {
        maxImageDimensionPx: config.replies.maxImageDimensionPx,
        maxOutputLines: config.replies.maxOutputLines,
        maxFileBytes: config.sandbox.maxFileBytes,
        bounds: this.profile.replyBounds,
      },
    });
  }
}

/** Puts notes (warnings, restored files) above a reply's text. */
export function withNotes(notes: string[], reply: Reply): Reply {
  if (notes.length) reply.text = `${notes.join('\n')}\n\n${reply.text}`;
  return reply;
}
