import type { Config } from '../config/index.js';
import { ThreadlabError, toThreadlabError } from '../domain/errors.js';
import { textReply } from '../domain/reply.js';
import { Interpreter } from '../interpreter/interpreter.js';
import type { ThreadlabMetrics } from '../ops/metrics.js';
import type { Logger } from '../logger.js';
import type { ArtifactRenderer } from '../ports/artifact-renderer.js';
import type { Job, JobContext } from '../ports/job-queue.js';
import type { LlmClient } from '../ports/llm-client.js';
import type { PlatformAdapter, ProgressSink } from '../ports/platform-adapter.js';
import type { Sandbox } from '../ports/sandbox.js';
import type { ConversationStore } from '../ports/conversation-store.js';
import { AnswerLedger } from './answer-ledger.js';
import { ClosingStatuses } from './closing-statuses.js';
import { intentOf } from './read-intent.js';
import { answerIntent } from './intents/index.js';
import { JobTurn, type JobServices } from './job-turn.js';
import type { PlatformAdapters } from '../platforms/platform-adapters.js';
import type { Governance } from '../ports/governance.js';
import type { ModelMemory } from '../domain/model-memory.js';
import type { DataSources } from '../ports/data-sources.js';
import { withJobAuditScope } from '../governance/audit/audit-scope.js';
import { isShutdown, userFacing } from './job-failure.js';
import type { Schedules, SettledRun } from '../schedules/schedules.js';

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
  /** Read-only SQL data sources (issue 38); unset: none configured. */
  sources?: DataSources;
  /** What is learned about each model server and model, shared with the model client. */
  models?: ModelMemory;
}

/**
 * Answers one job: builds its turn (src/core/job-turn.ts), hands it to its intent's handler (src/core/intents/),
 * and delivers the reply, in place of an edited message's answer where it had one. Converts failures once, logs
 * once and replies once.
 */
export class ThreadWorker {
  /** What each job's turn is given: the interpreter and the bot's services. */
  private readonly services: JobServices;
  /** The job running in each thread in this process (the queue runs one per thread at a time). */
  private readonly running = new Map<string, Promise<void>>();
  /** Which answer belongs to which message, for edits that re-run a message. */
  private readonly ledger: AnswerLedger;
  /** Each thread's status being taken down after its answer was delivered. */
  readonly closing = new ClosingStatuses();

  constructor(private readonly deps: ThreadWorkerDeps) {
    const interpreter = new Interpreter({
      llm: deps.llm,
      sandbox: deps.sandbox,
      store: deps.store,
      settings: deps.config.llm,
      sandboxTimeoutMs: deps.config.sandbox.timeoutMs,
      previewTimeoutMs: deps.config.sandbox.previewTimeoutMs,
      logger: deps.logger,
      ...(deps.sources ? { sources: deps.sources } : {}),
      ...(deps.models ? { models: deps.models } : {}),
    });
    const { config, logger, sandbox, store, renderer, governance, metrics, schedules } = deps;
    this.services = {
      config,
      logger,
      sandbox,
      store,
      renderer,
      interpreter,
      governance,
      ...(metrics ? { metrics } : {}),
      ...(schedules ? { schedules } : {}),
    };
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

  /** Resolves once the job running in the thread in this process, if any, has ended and its status is down. */
  async idle(threadKey: string): Promise<void> {
    await this.running.get(threadKey);
    await this.closing.of(threadKey);
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
    await this.closing.of(job.threadKey);
    const progress = adapter.progress(message);
    const started = Date.now();
    try {
      progress.update({ type: 'started' });
      const { turn, reply: answered } = this.answer(job, adapter, progress, context, log);
      const reply = await answered;
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
      return turn.budgetSpent ? 'budget' : reply.kind === 'error' ? 'failed' : 'ok';
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
      const closed = progress.close().catch((err) => log.warn({ err: toThreadlabError(err) }, 'progress close failed'));
      if (isShutdown(context.signal)) await closed;
      else this.closing.add(job.threadKey, closed);
    }
  }

  /** Builds the job's turn, picks its intent's handler and returns the reply. */
  private answer(job: Job, adapter: PlatformAdapter, progress: ProgressSink, context: JobContext, log: Logger) {
    // Read once, when the message arrived; a job queued before intents rode on jobs is read now.
    const intent = job.intent ?? intentOf(job.message);
    // The bot answers a stop when it arrives and never queues it.
    if (intent.kind === 'stop') throw new ThreadlabError('internal', 'A stop message reached the job queue.');
    const turn = new JobTurn(this.services, { job, context, adapter, progress, log });
    return { turn, reply: answerIntent(turn, intent) };
  }
}
