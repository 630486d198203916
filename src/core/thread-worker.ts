import type { Config } from '../config.js';
import { ThreadlabError, toThreadlabError } from '../domain/errors.js';
import type { FilePreview, SandboxFile } from '../domain/execution.js';
import type { InboundMessage } from '../domain/messages.js';
import type { ProgressEvent } from '../domain/progress.js';
import { textReply, type Reply } from '../domain/reply.js';
import { heldPreviews } from '../interpreter/held-run.js';
import { Interpreter } from '../interpreter/interpreter.js';
import { resetThreadMemory } from '../interpreter/index.js';
import type { TurnResult } from '../interpreter/turn.js';
import type { ThreadlabMetrics } from '../ops/metrics.js';
import type { Logger } from '../logger.js';
import type { ArtifactRenderer } from '../ports/artifact-renderer.js';
import type { Job, JobContext } from '../ports/job-queue.js';
import type { LlmClient } from '../ports/llm-client.js';
import type { PlatformAdapter, ProgressSink } from '../ports/platform-adapter.js';
import type { Sandbox } from '../ports/sandbox.js';
import type { ConversationStore } from '../ports/conversation-store.js';
import { buildReply } from '../replies/build-reply.js';
import { RenderAhead } from '../replies/render-ahead.js';
import { formatBytes } from '../replies/format.js';
import { AnswerLedger } from './answer-ledger.js';
import { exportThread, recordTurn, type RecordTurnOptions } from '../export/index.js';
import { storeAttachments } from './attachments.js';
import { helpText } from './help.js';
import { intentOf } from './intent.js';
import { runFromMessage } from './message-run.js';
import type { PlatformAdapters } from './platform-adapters.js';
import { describeUploads } from './previews.js';
import { rememberUploads, restoreUploads } from './upload-ledger.js';
import { isInternalFile } from '../domain/file-names.js';
import type { Governance, GovernedTurn } from '../ports/governance.js';
import { withJobAuditScope } from '../governance/audit/audit-scope.js';
import { isShutdown, userFacing } from './job-failure.js';
import type { Schedules, SettledRun } from '../schedules/schedules.js';
import { rerunInFreshContainer, rerunReply } from '../schedules/rerun.js';

export interface ThreadWorkerDeps {
  config: Config;
  logger: Logger;
  sandbox: Sandbox;
  llm?: LlmClient;
  store: ConversationStore;
  renderer: ArtifactRenderer;
  /** The adapters jobs are answered through (the bot's set). */
  adapters: PlatformAdapters;
  metrics?: Pick<ThreadlabMetrics, 'error' | 'llm'>;
  /** The budgets and approval hooks of each turn, and the `usage` answer. */
  governance: Governance;
  /** Scheduled reports: the `schedule` command and how each scheduled run ended. Unset: the command says so. */
  schedules?: Schedules;
}

/** How a job's run ended, for a schedule's count of failures in a row. */
interface RunVerdict {
  /** The creator's daily budget refused the run (or a cell of it). */
  budgetSpent: boolean;
}

/**
 * Answers one job: what its message asks for, attachments into the sandbox, a command, code run as
 * is or the interpreter's model loop, the reply. Converts failures once, logs once and replies once.
 */
export class ThreadWorker {
  private readonly interpreter: Interpreter;
  /** The job running in each thread in this process (the queue runs one per thread at a time). */
  private readonly running = new Map<string, Promise<void>>();
  /** Which answer belongs to which message, for edits that re-run a message. */
  private readonly ledger: AnswerLedger;

  constructor(private readonly deps: ThreadWorkerDeps) {
    this.interpreter = new Interpreter({
      llm: deps.llm,
      sandbox: deps.sandbox,
      store: deps.store,
      settings: deps.config.llm,
      sandboxTimeoutMs: deps.config.sandbox.timeoutMs,
      previewTimeoutMs: deps.config.sandbox.previewTimeoutMs,
      logger: deps.logger,
    });
    this.ledger = new AnswerLedger({ store: deps.store, ttlMs: deps.config.sandbox.filesTtlMs, logger: deps.logger });
  }

  /** One job, answered exactly once. */
  process(job: Job, context: JobContext): Promise<void> {
    // The job's audit scope: the sandbox's and the model's audit lines name its user and job.
    const done = withJobAuditScope(job, () => this.answerOnce(job, context)).then(async (outcome) => {
      // A scheduled run's end counts for its schedule (three failures in a row, a spent budget stop it).
      if (!job.origin || !outcome) return;
      await this.deps.schedules
        ?.settled(job, outcome)
        .catch((err: unknown) =>
          this.deps.logger.error(
            { err: toThreadlabError(err), job: job.id },
            'could not record how a scheduled run ended',
          ),
        );
    });
    const settled = done.then(
      () => undefined,
      () => undefined,
    );
    this.running.set(job.threadKey, settled);
    void settled.then(() => {
      if (this.running.get(job.threadKey) === settled) this.running.delete(job.threadKey);
    });
    return done;
  }

  /** Resolves once the job running in the thread in this process, if any, has ended. */
  async idle(threadKey: string): Promise<void> {
    await this.running.get(threadKey);
  }

  /** Answers the job; resolves with how its run ended (undefined for an ignored edit), throws on shutdown. */
  private async answerOnce(job: Job, context: JobContext): Promise<SettledRun | undefined> {
    const { message } = job;
    const adapter = this.deps.adapters.get(message.thread.platform);
    const log = this.deps.logger.child({ platform: message.thread.platform, thread: job.threadKey, job: job.id });
    // An edit is decided when it runs, after the original's job: its answer is known by then.
    const plan = await this.ledger.plan(job.threadKey, message);
    if (plan?.action === 'ignore') {
      log.info({ reason: plan.reason, original: message.edit?.originalId }, 'edit ignored');
      return undefined;
    }
    const verdict: RunVerdict = { budgetSpent: false };
    const progress = adapter.progress(message);
    const started = Date.now();
    try {
      progress.update({ type: 'started' });
      const reply = await this.answer(job, adapter, progress, context, verdict);
      // Shutdown, not the user, interrupted this run: no reply; the queue hands the job back or says so.
      if (isShutdown(context.signal)) throw context.signal.reason;
      if (job.attempt > 1) {
        // Files come back only where THREADLAB_DATA_DIR is shared between workers, so only variables are promised lost.
        reply.text = `_This message was picked up again after a worker stopped, so the thread's Python variables were reset._\n\n${reply.text}`;
      }
      if (job.origin)
        reply.text = `_Scheduled run (${job.origin.label}) for ${adapter.profile.mention(message.user)}._\n\n${reply.text}`;
      await this.ledger.deliver({ adapter, threadKey: job.threadKey, message, reply, plan });
      log.info({ durationMs: Date.now() - started, kind: reply.kind }, 'answered');
      return verdict.budgetSpent ? 'budget' : reply.kind === 'error' ? 'failed' : 'ok';
    } catch (err) {
      if (isShutdown(context.signal)) {
        log.warn('interrupted by shutdown; handing the job back');
        throw context.signal.reason;
      }
      const error = toThreadlabError(err);
      log.error({ err: error, code: error.code }, 'job failed');
      this.deps.metrics?.error(error.code);
      progress.update({ type: 'error', code: error.code, message: error.message });
      const failed = textReply(userFacing(error), error.code === 'cancelled' ? 'notice' : 'error');
      // A failed re-run never replaces the answer that stood: it is said below it.
      await this.ledger
        .deliver({ adapter, threadKey: job.threadKey, message, reply: failed, plan, inPlace: false })
        .catch((replyErr) => log.error({ err: toThreadlabError(replyErr) }, 'could not post the error reply'));
      return error.code === 'budget_exceeded' ? 'budget' : error.code === 'cancelled' ? 'cancelled' : 'failed';
    } finally {
      await progress.close().catch((err) => log.warn({ err: toThreadlabError(err) }, 'progress close failed'));
    }
  }

  private async answer(
    job: Job,
    adapter: PlatformAdapter,
    progress: ProgressSink,
    context: JobContext,
    verdict: RunVerdict,
  ): Promise<Reply> {
    const { message, threadKey } = job;
    const { signal } = context;
    const { sandbox } = this.deps;
    // Read once, when the message arrived; a job queued before intents rode on jobs is read now.
    const intent = job.intent ?? intentOf(message);
    // Figures start rendering for the reply as their runs send them, while the turn goes on.
    const ahead = new RenderAhead(this.deps.renderer, {
      maxImageDimensionPx: this.deps.config.replies.maxImageDimensionPx,
    });
    const onProgress = (event: ProgressEvent) => {
      progress.update(event);
      if (event.type === 'display') ahead.display(event.display);
    };
    // A reset clears the files anyway and help needs none; the rest first gets back earlier uploads.
    switch (intent.kind) {
      case 'stop':
        // The bot answers a stop when it arrives and never queues it.
        throw new ThreadlabError('internal', 'A stop message reached the job queue.');
      case 'reset':
        await sandbox.reset(threadKey);
        await resetThreadMemory(this.deps.store, threadKey);
        return textReply('This thread was reset: variables, files and conversation memory are cleared.');
      case 'help':
        return textReply(helpText(adapter.profile.commandNames, adapter.profile.scheduleCommand));
      case 'usage':
        return textReply(await this.deps.governance.usage(message));
      case 'export': {
        // Its package lookup is a run in the sandbox: admitted and charged to the run-time budget like one.
        const { budget } = await this.deps.governance.forTurn(this.turnOf(message, threadKey, adapter, ['runMs']));
        return exportThread({ store: this.deps.store, sandbox, threadKey, signal, ...(budget ? { budget } : {}) });
      }
      case 'schedule':
        if (!this.deps.schedules) return textReply('Scheduled reports are not available in this process.');
        return textReply((await this.deps.schedules.command(message, intent.text)).text);
      case 'rerun': {
        // A schedule re-runs the thread's notebook as its creator's own code: run time only, never recorded again.
        const { budget } = await this.deps.governance.forTurn(this.turnOf(message, threadKey, adapter, ['runMs']));
        const { turn, notes } = await rerunInFreshContainer({
          sandbox,
          store: this.deps.store,
          threadKey,
          restore: () => this.restore(threadKey, adapter, signal),
          run: (cell) =>
            this.interpreter.runDirect({ threadKey, ...cell }, { signal, onProgress, ...(budget ? { budget } : {}) }),
        });
        notes.push(...(budget?.notices ?? []));
        verdict.budgetSpent = turn.outcome === 'budget';
        return rerunReply(turn, prefix(notes, await this.toReply(turn, threadKey, adapter, ahead)));
      }
      case 'files': {
        const notes = await this.restore(threadKey, adapter, signal);
        return prefix(notes, await this.listFiles(threadKey));
      }
      case 'run': {
        // Code the user sent spends run time only: a spent token budget does not stop it.
        const { budget } = await this.deps.governance.forTurn(this.turnOf(message, threadKey, adapter, ['runMs']));
        const notes = await this.restore(threadKey, adapter, signal);
        notes.push(...(await this.upload(message, threadKey, adapter, signal)).problems);
        const { language, code } = intent;
        const turn = await this.interpreter.runDirect(
          { threadKey, language, code },
          { signal, onProgress, ...(budget ? { budget } : {}) },
        );
        notes.push(...(budget?.notices ?? []));
        notes.push(...(await this.recordExport({ threadKey, runs: turn.runs })));
        return prefix(notes, await this.toReply(turn, threadKey, adapter, ahead));
      }
      case 'runCells':
      case 'runScript': {
        const { sandbox: settings } = this.deps.config;
        return runFromMessage(message, intent, {
          limits: {
            maxBytes: settings.scriptMaxBytes,
            maxCells: settings.maxRunCells,
            downloadMaxBytes: settings.maxFileBytes,
          },
          interpreter: this.interpreter,
          adapter,
          threadKey,
          signal,
          onProgress,
          budget: async () =>
            (await this.deps.governance.forTurn(this.turnOf(message, threadKey, adapter, ['runMs']))).budget,
          restore: () => this.restore(threadKey, adapter, signal),
          upload: async (m) => (await this.upload(m, threadKey, adapter, signal)).problems,
          recordExport: (runs) => this.recordExport({ threadKey, runs }),
          toReply: (turn) => this.toReply(turn, threadKey, adapter, ahead),
        });
      }
      case 'ask': {
        const { budget, approve } =
          intent.text.trim() === ''
            ? {}
            : await this.deps.governance.forTurn(this.askTurn(message, threadKey, adapter, context.park));
        const notes = await this.restore(threadKey, adapter, signal);
        const uploads = await this.upload(message, threadKey, adapter, signal);
        notes.push(...uploads.problems);
        const files = uploads.files;
        if (intent.text.trim() === '') {
          if (files.length === 0) return textReply([...notes, 'Send a question or a ```python block.'].join('\n'));
          const previews = await this.previewUploads({ message, adapter, threadKey, files, signal, notes });
          return textReply([...notes, describeUploads(files, previews)].join('\n'));
        }
        const turn = await this.interpreter.handle(
          { threadKey, text: intent.text, uploaded: files, ...(message.viewing ? { viewing: message.viewing } : {}) },
          { signal, onProgress, ...(budget ? { budget } : {}), ...(approve ? { approve } : {}) },
        );
        notes.push(...(budget?.notices ?? []));
        this.recordAnswer(threadKey, message, turn);
        const asked = { text: intent.text, files: files.map((f) => f.path) };
        const answer =
          turn.outcome === 'answer'
            ? { text: turn.text, ...(turn.figures ? { figures: turn.figures } : {}) }
            : undefined;
        notes.push(
          ...(await this.recordExport({ threadKey, message: asked, runs: turn.runs, ...(answer ? { answer } : {}) })),
        );
        return prefix(notes, await this.toReply(turn, threadKey, adapter, ahead));
      }
    }
  }

  /**
   * A question for the model: it spends tokens and run time, and its code may wait for approval on the platform,
   * parked (`park`: the worker slot goes to other threads while a person decides).
   */
  private askTurn(
    message: InboundMessage,
    threadKey: string,
    adapter: PlatformAdapter,
    park: JobContext['park'],
  ): GovernedTurn {
    return {
      ...this.turnOf(message, threadKey, adapter, ['tokens', 'runMs']),
      ...(park ? { park } : {}),
    };
  }

  /** A turn as governance sees it; its budget refusals name the usage command as the adapter's users type it. */
  private turnOf(
    message: InboundMessage,
    threadKey: string,
    adapter: PlatformAdapter,
    needs: GovernedTurn['needs'],
  ): GovernedTurn {
    return { message, threadKey, needs, usageCommand: adapter.profile.commandNames.usage };
  }

  /**
   * Fetches the thread's earlier uploads again when this worker has no live session for it (it took
   * the thread over); returns notes that say what came back and what did not.
   */
  private async restore(threadKey: string, adapter: PlatformAdapter, signal: AbortSignal): Promise<string[]> {
    const { config, sandbox, store } = this.deps;
    if (sandbox.isLive(threadKey)) return [];
    const maxBytes = config.sandbox.maxFileBytes;
    const again = await restoreUploads({ store, threadKey, adapter, sandbox, maxBytes, signal });
    const notes: string[] = [];
    if (again.restored.length)
      notes.push(`_Fetched this thread's uploads again: ${again.restored.map((p) => `\`${p}\``).join(', ')}._`);
    notes.push(...again.problems.map((p) => `⚠️ ${p}`));
    return notes;
  }

  /**
   * Previews of files sent without a question: they run code in the sandbox, so they hold run time like any run.
   * With a run-time budget spent the files stay in `/mnt/data` unpreviewed, and `notes` says why.
   */
  private async previewUploads(o: {
    message: InboundMessage;
    adapter: PlatformAdapter;
    threadKey: string;
    files: SandboxFile[];
    signal: AbortSignal | undefined;
    notes: string[];
  }): Promise<FilePreview[]> {
    const { message, adapter, threadKey, files, signal, notes } = o;
    const { config, sandbox } = this.deps;
    // No admission: the files are added whatever the budgets say; only the preview holds run time.
    const { budget } = await this.deps.governance.forTurn(this.turnOf(message, threadKey, adapter, []));
    const previews = await heldPreviews(budget, sandbox, {
      threadKey,
      paths: files.map((f) => f.path),
      timeoutMs: config.sandbox.previewTimeoutMs,
      signal,
    });
    notes.push(...(budget?.notices ?? []));
    if (!('refused' in previews)) return previews;
    notes.push(`Not previewed: ${previews.refused}`);
    return [];
  }

  /** The model turn's audit line (outcome, spend, figure counts); a turn without a model has none. */
  private recordAnswer(threadKey: string, message: InboundMessage, turn: TurnResult): void {
    if (turn.outcome === 'not_configured') return;
    this.deps.governance.recordAnswer({
      threadKey,
      userId: message.user.id,
      outcome: turn.outcome,
      model: turn.model,
      runs: turn.runs.length,
      usage: turn.usage,
      durationMs: turn.durationMs,
      ...(turn.figures ? { figures: turn.figures } : {}),
    });
  }

  /** Adds the turn to the thread's export log; a failure is a note on the reply, not a lost answer. */
  private async recordExport(turn: Omit<RecordTurnOptions, 'store' | 'atMs'>): Promise<string[]> {
    try {
      await recordTurn({ ...turn, store: this.deps.store, atMs: Date.now() });
      return [];
    } catch (err) {
      this.deps.logger.warn({ err: toThreadlabError(err), thread: turn.threadKey }, 'could not record for export');
      return ["⚠️ This exchange could not be added to the thread's notebook export (`export`)."];
    }
  }

  /** Puts the message's attachments into the sandbox and remembers them; problems are notes for the reply. */
  private async upload(
    message: InboundMessage,
    threadKey: string,
    adapter: PlatformAdapter,
    signal: AbortSignal,
  ): Promise<{ files: SandboxFile[]; problems: string[] }> {
    const { config, sandbox, store } = this.deps;
    const maxBytes = config.sandbox.maxFileBytes;
    const uploads = await storeAttachments({ message, threadKey, adapter, sandbox, maxBytes, signal });
    await rememberUploads({ store, threadKey, stored: uploads.stored, ttlMs: config.sandbox.filesTtlMs });
    return { files: uploads.stored.map((s) => s.file), problems: uploads.problems.map((p) => `⚠️ ${p}`) };
  }

  private async listFiles(threadKey: string): Promise<Reply> {
    const files = (await this.deps.sandbox.listFiles(threadKey)).filter((f) => !isInternalFile(f.path));
    if (files.length === 0)
      return textReply('No files in this thread yet. Upload one, or have your code write to `/mnt/data`.');
    const lines = files.map((f) => `• \`${f.path}\` — ${formatBytes(f.bytes)}, ${f.mime}`);
    return textReply([`Files in \`/mnt/data\` (${files.length}):`, ...lines].join('\n'));
  }

  private toReply(
    turn: TurnResult,
    threadKey: string,
    adapter: PlatformAdapter,
    renderer: ArtifactRenderer,
  ): Promise<Reply> {
    const { config, sandbox, metrics } = this.deps;
    metrics?.llm.tokens({ prompt: turn.usage.promptTokens, completion: turn.usage.completionTokens });
    for (const kind of turn.behaviour ?? []) metrics?.llm.behaviour(kind, turn.model ?? 'unknown');
    return buildReply(turn, {
      sandbox,
      renderer,
      threadKey,
      limits: {
        maxImageDimensionPx: config.replies.maxImageDimensionPx,
        maxOutputLines: config.replies.maxOutputLines,
        maxFileBytes: config.sandbox.maxFileBytes,
        bounds: adapter.profile.replyBounds,
      },
    });
  }
}

/** Puts notes (warnings, restored files) above a reply's text. */
function prefix(notes: string[], reply: Reply): Reply {
  if (notes.length) reply.text = `${notes.join('\n')}\n\n${reply.text}`;
  return reply;
}
