import type { Config } from '../config/index.js';
import { toThreadlabError } from '../domain/errors.js';
import { pressMessage, type InboundMessage, type InboundUser } from '../domain/messages.js';
import { textReply, type Reply } from '../domain/reply.js';
import { parseThreadKey, threadKey } from '../domain/thread-key.js';
import type { Logger } from '../logger.js';
import type { ArtifactRenderer } from '../ports/artifact-renderer.js';
import type { Job, JobQueue } from '../ports/job-queue.js';
import type { LlmClient } from '../ports/llm-client.js';
import type {
  AdmitOptions,
  Admission,
  InboundHandler,
  InboundOutcome,
  PlatformAdapter,
  StopOutcome,
} from '../ports/platform-adapter.js';
import type { ModelMemory } from '../domain/model-memory.js';
import type { DataSources, SourceSummary } from '../ports/data-sources.js';
import { scopeIn } from './source-scope.js';
import type { Governance } from '../ports/governance.js';
import type { Sandbox } from '../ports/sandbox.js';
import type { ConversationStore } from '../ports/conversation-store.js';
import { intentOf, type Intent } from './read-intent.js';
import { isDirectRun } from '../domain/intent.js';
import { PlatformAdapters } from '../platforms/platform-adapters.js';
import { ThreadWorker } from './thread-worker.js';
import type { ThreadlabMetrics } from '../ops/metrics.js';
import type { DropReason } from '../queue/queue-events.js';
import type { ApprovalPress, ApprovalPressOutcome } from '../ports/approval.js';
import type { Platform, ThreadRef } from '../domain/thread-key.js';
import type { Scheduler } from '../ports/scheduler.js';
import { Schedules } from '../schedules/schedules.js';
import { personName } from '../platforms/person-name.js';
import type { FeedbackClick, FeedbackOutcome } from '../domain/feedback.js';
import type { FeedbackDesk } from '../feedback/feedback-desk.js';

export interface BotDeps {
  config: Config;
  logger: Logger;
  sandbox: Sandbox;
  llm?: LlmClient;
  store: ConversationStore;
  queue: JobQueue;
  renderer: ArtifactRenderer;
  adapters: PlatformAdapter[];
  /** Where tokens and error codes are counted. */
  metrics?: Pick<ThreadlabMetrics, 'error' | 'llm'>;
  /** Access, stop rights, budgets, approval, audit and who wrote where: built in app/; closed with the bot. */
  governance: Governance;
  /** Where schedules live and fire (in this process, or BullMQ job schedulers); unset: no scheduled reports. */
  scheduler?: Scheduler;
  /** Records 👍/👎 on the model's answers (audit line, metrics); unset: clicks are told feedback is not recorded. */
  feedback?: Pick<FeedbackDesk, 'give'>;
  /** Read-only SQL data sources the model and sql fences may query (issue 38); unset: none configured. */
  sources?: DataSources;
  /** What is learned about each model server and model (dialect, context window, tool protocol), for the process. */
  models?: ModelMemory;
}

export interface BotStartOptions {
  /** Connect adapters to their platforms (the gateway role). @defaultValue true */
  gateway?: boolean;
  /** Process jobs: sandbox and LLM loop (the worker role). @defaultValue true */
  worker?: boolean;
}

/**
 * The bot, the core: adapters hand it messages, the queue orders them per thread, the thread worker answers.
 * One process runs both roles by default; `--role gateway|worker` splits them over Redis.
 */
export class Bot implements InboundHandler {
  private readonly adapters: PlatformAdapters;
  private readonly worker: ThreadWorker;
  private readonly schedules: Schedules | undefined;
  private started: BotStartOptions = {};

  constructor(private readonly deps: BotDeps) {
    this.adapters = new PlatformAdapters(deps.adapters);
    const { scheduler } = deps;
    this.schedules = scheduler
      ? new Schedules({
          scheduler,
          queue: deps.queue,
          store: deps.store,
          governance: deps.governance,
          adapters: this.adapters,
          settings: deps.config.schedules,
          logger: deps.logger.child({ component: 'schedules' }),
        })
      : undefined;
    this.worker = new ThreadWorker({
      ...deps,
      adapters: this.adapters,
      ...(this.schedules ? { schedules: this.schedules } : {}),
    });
  }

  /**
   * Registers an adapter after construction (tests). Governance was built without it, so its approval buttons and
   * user groups are not governance's surfaces: pass adapters to `buildBot` for those.
   */
  addAdapter(adapter: PlatformAdapter): void {
    this.adapters.add(adapter);
  }

  /** The address of a surface this process serves to browsers, if one of its adapters does. */
  browserUrl(): string | undefined {
    return this.adapters.all().find((adapter) => adapter.url !== undefined)?.url;
  }

  async start(options: BotStartOptions = {}): Promise<void> {
    this.started = { gateway: options.gateway ?? true, worker: options.worker ?? true };
    if (this.started.worker) await this.deps.queue.process((job, ctx) => this.worker.process(job, ctx));
    if (this.started.gateway) {
      for (const adapter of this.adapters.all()) await adapter.start(this);
    }
    // Workers fire schedules (once across all of them with Redis); a firing queues an ordinary job of the thread.
    const { schedules } = this;
    if (this.started.worker && schedules) await this.deps.scheduler?.start((firing) => schedules.fire(firing));
  }

  /** The data sources `user` may query in `thread` (none without sources). */
  sourcesFor(thread: ThreadRef, user: InboundUser): SourceSummary[] {
    return this.deps.sources?.list(scopeIn(thread, user)) ?? [];
  }

  async stop(): Promise<void> {
    const { logger, queue, sandbox, store } = this.deps;
    await this.deps.scheduler?.close().catch((err: unknown) => logger.warn({ err }, 'scheduler close failed'));
    for (const adapter of this.adapters.all()) {
      await adapter.stop().catch((err) => logger.warn({ err, platform: adapter.platform }, 'adapter stop failed'));
    }
    await queue.close(this.deps.config.queue.shutdownTimeoutMs);
    await this.worker.closing.settle(this.deps.config.queue.shutdownTimeoutMs);
    await sandbox.close();
    await store.close();
    await this.deps.governance.close();
    await this.deps.sources?.close().catch((err: unknown) => logger.warn({ err }, 'data sources close failed'));
  }

  /**
   * The core's verdict on a message: a stop cancels the thread's job at once (when the sender may stop it);
   * anything else is queued, within the limits. Posts nothing: the adapter gives the one answer.
   */
  async onMessage(message: InboundMessage): Promise<InboundOutcome> {
    const key = threadKey(message.thread);
    const log = this.deps.logger.child({ platform: message.thread.platform, thread: key, event: message.id });
    // Read once: the access check, the stop below and the worker (on the job) all act on this intent.
    const intent = intentOf(message);
    // Before anything is queued or run: a refused user is refused (told once per place) and nothing else happens.
    const admission = await this.admitAs(message, intent);
    if (!admission.allowed)
      return { accepted: false, reason: 'not_allowed', message: admission.message, tell: admission.tell };
    const command = isDirectRun(intent) || intent.kind === 'ask' || intent.kind === 'rerun' ? undefined : intent.kind;
    // Listing and cancelling schedules are answered now: never behind a running firing, never refused by a limit.
    if (intent.kind === 'schedule' && this.schedules?.answersAtOnce(intent.text)) {
      const answer = await this.schedules.command(message, intent.text);
      log.info({ onlySender: Boolean(answer.onlySender) }, 'schedule command answered');
      if (answer.onlySender) return { accepted: false, reason: 'not_allowed', message: answer.text, tell: true };
      return { accepted: true, command: 'schedule', answer: answer.text };
    }
    if (intent.kind === 'stop') {
      const stop = await this.stopTurn(key, message.user);
      if (!stop.accepted) return stop;
      return {
        accepted: true,
        command: 'stop',
        answer: stop.stopped ? 'Stopped.' : 'Nothing is running in this thread.',
      };
    }
    const result = await this.deps.queue.enqueue(message, { intent });
    if (result.accepted) {
      log.info({ job: result.jobId, position: result.position }, 'message queued');
      // Off the reply's path: a failed write costs only the purge's view of this thread, and is logged.
      void this.deps.governance
        .recordWriter(key, message.user.id)
        .catch((err: unknown) => log.warn({ err }, 'could not record who wrote in the thread'));
    } else if (result.reason === 'duplicate') {
      log.info({ job: result.jobId }, 'duplicate delivery ignored');
    } else {
      log.info({ reason: result.reason, retryAfterMs: result.retryAfterMs }, 'message refused by a limit');
      const { reason, retryAfterMs } = result;
      return { accepted: false, reason, retryAfterMs, message: result.message };
    }
    return command ? { accepted: true, command } : { accepted: true };
  }

  /**
   * The access allowlists' verdict on `message` (THREADLAB_ACCESS_*); a refusal says whether to tell it now
   * (once per place). Adapters ask before their own side effects (a thread created, a root message posted);
   * `onMessage` asks again, as the authority.
   */
  admit(message: InboundMessage, options: AdmitOptions = {}): Promise<Admission> {
    return this.admitAs(message, intentOf(message), options);
  }

  /** {@link admit} of a message whose intent was read already. */
  private admitAs(message: InboundMessage, intent: Intent, options: AdmitOptions = {}): Promise<Admission> {
    return this.deps.governance.admit(message, { ...options, direct: isDirectRun(intent) });
  }

  /** A Stop press (button, or the platform's own stop): the presser must be let in and may stop the turn. */
  async onCancel(key: string, by: InboundUser): Promise<StopOutcome> {
    const press = pressMessage(parseThreadKey(key), by);
    // A press expects an answer: a refused presser is told every time.
    const admission = await this.admit(press, { slashCommand: true });
    if (!admission.allowed) return { accepted: false, reason: 'not_allowed', message: admission.message, tell: true };
    return this.stopTurn(key, by);
  }

  /**
   * Stops the thread's jobs when `by` may: the person whose message started the running turn, or an approval
   * admin (THREADLAB_APPROVAL_ADMINS). The starter is read from the queue, so a gateway decides it too.
   */
  private async stopTurn(key: string, by: InboundUser): Promise<StopOutcome> {
    const platform = parseThreadKey(key).platform;
    const log = this.deps.logger.child({ platform, thread: key, by: by.id });
    const starter = await this.deps.queue.starter(key);
    if (starter && !this.deps.governance.mayStop(platform, by.id, starter.id)) {
      log.info({ starter: starter.id }, 'stop refused: not the presser’s run');
      const who = `${personName(this.adapters, platform, starter)} (who started it)`;
      return {
        accepted: false,
        reason: 'not_allowed',
        message: `Only ${who} or a Threadlab admin can stop this run.`,
        tell: true,
      };
    }
    const stopped = await this.deps.queue.cancel(key);
    log.info({ cancelled: stopped }, 'stop requested');
    return { accepted: true, stopped };
  }

  /**
   * A deleted thread: its schedules are removed, its jobs are stopped and, once the running one has ended (so it cannot start a
   * session again), its sandbox session with the host copies of its files and its memory are removed.
   * A gateway-only process has no sandbox: there the files are left to expire on the workers.
   */
  async onThreadDeleted(key: string): Promise<void> {
    await this.schedules?.forgetThread(key);
    await this.deps.queue.cancel(key);
    await this.worker.idle(key);
    if (this.started.worker) await this.deps.sandbox.reset(key);
    await this.deps.store.delete(key);
    this.deps.logger.info({ thread: key, sandboxRemoved: Boolean(this.started.worker) }, 'thread deleted');
  }

  /** A Run or Skip press: decides the waiting request when the presser may. */
  async onApproval(platform: Platform, press: ApprovalPress): Promise<ApprovalPressOutcome> {
    return this.deps.governance.onPress(platform, press);
  }

  /** A 👍/👎 on an answer: from someone the allowlists let in, recorded against the model the answer ledger names. */
  async onFeedback(click: FeedbackClick): Promise<FeedbackOutcome> {
    const press = pressMessage(parseThreadKey(click.threadKey), click.user);
    const admission = await this.admit(press, { slashCommand: true });
    if (!admission.allowed) return { recorded: false, reason: 'not_allowed', message: admission.message };
    if (!this.deps.feedback)
      return { recorded: false, reason: 'unavailable', message: 'Feedback is not recorded by this Threadlab.' };
    return this.deps.feedback.give(click);
  }

  /** A job that will not run (stopped while waiting, dropped at shutdown, given up): its user is told. */
  async onDropped(job: Job, reason: DropReason): Promise<void> {
    const text = {
      cancelled: 'Stopped before it started.',
      shutdown: 'Threadlab restarted before it could work on this message. Please send it again.',
      failed: 'This message could not be processed, even after a retry on another worker. Please send it again.',
    }[reason];
    const log = this.deps.logger.child({ platform: job.message.thread.platform, thread: job.threadKey, job: job.id });
    log.info({ reason }, 'job dropped');
    await this.safeReply(job.message, textReply(text), log);
  }

  private async safeReply(message: InboundMessage, reply: Reply, log: Logger): Promise<void> {
    try {
      await this.adapters.get(message.thread.platform).reply(message, reply);
    } catch (err) {
      log.error({ err: toThreadlabError(err) }, 'could not post a reply');
    }
  }
}
