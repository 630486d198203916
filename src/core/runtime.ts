import type { Config } from '../config.js';
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
import type { Sandbox } from '../ports/sandbox.js';
import type { SessionStore } from '../ports/session-store.js';
import { intentOf } from './intent.js';
import { PlatformAdapters } from './platform-adapters.js';
import { ThreadWorker } from './thread-worker.js';
import { AccessGate } from '../governance/access/access-gate.js';
import { restricts } from '../governance/access/access-policy.js';
import type { ThreadlabMetrics } from '../ops/metrics.js';
import type { DropReason } from '../queue/queue-events.js';
import type { DailyBudgets } from '../governance/budget/budget.js';
import { ApprovalGate } from '../governance/approval/approval-gate.js';
import type { AuditLog } from '../governance/audit/audit-log.js';
import type { ApprovalPress, ApprovalPressOutcome } from '../ports/approval.js';
import type { ApprovalBoard } from '../ports/approval-board.js';
import type { Platform } from '../domain/thread-key.js';

export interface RuntimeDeps {
  config: Config;
  logger: Logger;
  sandbox: Sandbox;
  llm?: LlmClient;
  store: SessionStore;
  queue: JobQueue;
  renderer: ArtifactRenderer;
  adapters: PlatformAdapter[];
  /** Where tokens and error codes are counted. */
  metrics?: Pick<ThreadlabMetrics, 'error' | 'llm'>;
  /** The daily budgets, when any is set; closed with the runtime. */
  budgets?: DailyBudgets;
  /** Who wrote in which thread, so `threadlab purge --user` finds a user's threads (retention). */
  participants?: { record(key: string, userId: string): Promise<void> };
  /** The audit trail, for the approval decisions (runs and model calls are audited by their decorators). */
  audit?: AuditLog;
  /** Where approval requests wait for presses (Redis in split roles); unset: in this process. */
  approvalBoard?: ApprovalBoard;
}

export interface RuntimeStartOptions {
  /** Connect adapters to their platforms (the gateway role). @defaultValue true */
  gateway?: boolean;
  /** Process jobs: sandbox and LLM loop (the worker role). @defaultValue true */
  worker?: boolean;
}

/**
 * The core: adapters hand it messages, the queue orders them per thread, the thread worker answers.
 * One process runs both roles by default; `--role gateway|worker` splits them over Redis.
 */
export class Runtime implements InboundHandler {
  private readonly adapters: PlatformAdapters;
  private readonly worker: ThreadWorker;
  /** Code the model wrote, waiting for a person's Run or Skip (THREADLAB_APPROVAL=ask). */
  private readonly approvals: ApprovalGate;
  /** Who may use the bot where (THREADLAB_ACCESS_*); undefined when no list is set. */
  private readonly access: AccessGate | undefined;
  /** Who may stop anyone's run besides its starter, as `platform:userId` (THREADLAB_APPROVAL_ADMINS). */
  private readonly stoppers: ReadonlySet<string>;
  private started: RuntimeStartOptions = {};

  constructor(private readonly deps: RuntimeDeps) {
    this.adapters = new PlatformAdapters(deps.adapters);
    const { help, noticeMemory, ...policy } = deps.config.access;
    this.access = restricts(policy)
      ? new AccessGate({ policy, help, maxNotices: noticeMemory, logger: deps.logger })
      : undefined;
    const { approval } = deps.config;
    this.stoppers = new Set(approval.admins);
    this.approvals = new ApprovalGate({
      timeoutMs: approval.timeoutMs,
      admins: approval.admins,
      logger: deps.logger,
      ...(deps.audit ? { audit: deps.audit } : {}),
      ...(deps.approvalBoard ? { board: deps.approvalBoard } : {}),
    });
    this.worker = new ThreadWorker({ ...deps, adapters: this.adapters, approvals: this.approvals });
  }

  /** Registers an adapter after construction (the CLI's one-shot adapter, tests). */
  addAdapter(adapter: PlatformAdapter): void {
    this.adapters.add(adapter);
  }

  /** The local web chat's address, when it runs in this process. */
  webUrl(): string | undefined {
    return (this.adapters.find('web') as (PlatformAdapter & { url?: string }) | undefined)?.url;
  }

  async start(options: RuntimeStartOptions = {}): Promise<void> {
    this.started = { gateway: options.gateway ?? true, worker: options.worker ?? true };
    if (this.started.worker) await this.deps.queue.process((job, ctx) => this.worker.process(job, ctx));
    if (this.started.gateway) {
      for (const adapter of this.adapters.all()) await adapter.start(this);
    }
  }

  async stop(): Promise<void> {
    const { logger, queue, sandbox, store } = this.deps;
    for (const adapter of this.adapters.all()) {
      await adapter.stop().catch((err) => logger.warn({ err, platform: adapter.platform }, 'adapter stop failed'));
    }
    await queue.close(this.deps.config.queue.shutdownTimeoutMs);
    await sandbox.close();
    await store.close();
    await this.deps.budgets?.close();
    await this.approvals.close();
  }

  /**
   * The core's verdict on a message: a stop cancels the thread's job at once (when the sender may stop it);
   * anything else is queued, within the limits. Posts nothing: the adapter gives the one answer.
   */
  async onMessage(message: InboundMessage): Promise<InboundOutcome> {
    const key = threadKey(message.thread);
    const log = this.deps.logger.child({ platform: message.thread.platform, thread: key, event: message.id });
    const intent = intentOf(message);
    // Before anything is queued or run: a refused user is refused (told once per place) and nothing else happens.
    const admission = await this.admit(message);
    if (!admission.allowed)
      return { accepted: false, reason: 'not_allowed', message: admission.message, tell: admission.tell };
    const command = intent.kind === 'run' || intent.kind === 'ask' ? undefined : intent.kind;
    if (intent.kind === 'stop') {
      const stop = await this.stopTurn(key, message.user);
      if (!stop.accepted) return stop;
      return {
        accepted: true,
        command: 'stop',
        answer: stop.stopped ? 'Stopped.' : 'Nothing is running in this thread.',
      };
    }
    const result = await this.deps.queue.enqueue(message);
    if (result.accepted) {
      log.info({ job: result.jobId, position: result.position }, 'message queued');
      // Off the reply's path: a failed write costs only the purge's view of this thread, and is logged.
      void this.deps.participants
        ?.record(key, message.user.id)
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
  async admit(message: InboundMessage, options: AdmitOptions = {}): Promise<Admission> {
    if (!this.access) return { allowed: true };
    const adapter = this.adapters.find(message.thread.platform);
    const refusal = await this.access.check(message, intentOf(message), adapter);
    if (!refusal) return { allowed: true };
    const tell = this.access.tellsNow(message, refusal, { always: options.slashCommand === true });
    return { allowed: false, message: refusal.text, tell };
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
    if (starter && starter.id !== by.id && !this.stoppers.has(`${platform}:${by.id}`)) {
      log.info({ starter: starter.id }, 'stop refused: not the presser’s run');
      const who = starter.name ? `${starter.name} (who started it)` : 'the person who started it';
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
   * A deleted thread: its jobs are stopped and, once the running one has ended (so it cannot start a
   * session again), its sandbox session with the host copies of its files and its memory are removed.
   * A gateway-only process has no sandbox: there the files are left to expire on the workers.
   */
  async onThreadDeleted(key: string): Promise<void> {
    await this.deps.queue.cancel(key);
    await this.worker.idle(key);
    if (this.started.worker) await this.deps.sandbox.reset(key);
    await this.deps.store.delete(key);
    this.deps.logger.info({ thread: key, sandboxRemoved: Boolean(this.started.worker) }, 'thread deleted');
  }

  /** A Run or Skip press: decides the waiting request when the presser may. */
  async onApproval(platform: Platform, press: ApprovalPress): Promise<ApprovalPressOutcome> {
    return this.approvals.press(platform, press);
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
