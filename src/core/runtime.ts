import type { Config } from '../config.js';
import { toThreadlabError } from '../domain/errors.js';
import type { InboundMessage } from '../domain/messages.js';
import { textReply, type Reply } from '../domain/reply.js';
import { threadKey } from '../domain/thread-key.js';
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
} from '../ports/platform-adapter.js';
import type { Sandbox } from '../ports/sandbox.js';
import type { SessionStore } from '../ports/session-store.js';
import { intentOf, type Intent } from './intent.js';
import { PlatformAdapters } from './platform-adapters.js';
import { ThreadWorker } from './thread-worker.js';
import { AccessGate } from '../governance/access-gate.js';
import { restricts } from '../governance/access-policy.js';
import type { ThreadlabMetrics } from '../ops/metrics.js';
import type { DropReason } from '../queue/queue-events.js';
import type { DailyBudgets } from '../governance/budget.js';
import { ApprovalGate } from '../governance/approval-gate.js';
import type { AuditLog } from '../governance/audit-log.js';
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
  private started: RuntimeStartOptions = {};

  constructor(private readonly deps: RuntimeDeps) {
    this.adapters = new PlatformAdapters(deps.adapters);
    const { help, noticeMemory, ...policy } = deps.config.access;
    this.access = restricts(policy)
      ? new AccessGate({ policy, help, maxNotices: noticeMemory, logger: deps.logger })
      : undefined;
    const { approval } = deps.config;
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
    for (const adapter of this.adapters.all()) {
      const { url } = adapter as PlatformAdapter & { url?: unknown };
      if (typeof url === 'string') return url;
    }
    return undefined;
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

  /** A stop cancels the thread's job at once; anything else is queued, within the limits. */
  async onMessage(message: InboundMessage): Promise<InboundOutcome> {
    const key = threadKey(message.thread);
    const log = this.deps.logger.child({ platform: message.thread.platform, thread: key, event: message.id });
    // Read once: the access check, the stop below and the worker (on the job) all act on this intent.
    const intent = intentOf(message);
    // Before anything is queued or run: a refused user is told (once per place) and nothing else happens.
    const admission = await this.admitAs(message, intent);
    if (!admission.allowed) return { accepted: false, reason: 'not_allowed', message: admission.message };
    const command = intent.kind === 'run' || intent.kind === 'ask' ? undefined : intent.kind;
    if (intent.kind === 'stop') {
      const cancelled = await this.deps.queue.cancel(key);
      await this.safeReply(message, textReply(cancelled ? 'Stopped.' : 'Nothing is running in this thread.'), log);
      return { accepted: true, command: 'stop' };
    }
    const result = await this.deps.queue.enqueue(message, { intent });
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
      await this.safeReply(message, textReply(result.message), log);
      const { reason, retryAfterMs } = result;
      return { accepted: false, reason, retryAfterMs, message: result.message };
    }
    return command ? { accepted: true, command } : { accepted: true };
  }

  /**
   * The access allowlists' verdict on `message` (THREADLAB_ACCESS_*); a refused user is told, once per
   * place and privately where the platform allows. Adapters ask before their own side effects (a thread
   * created, a root message posted); `onMessage` asks again, as the authority.
   */
  admit(message: InboundMessage, options: AdmitOptions = {}): Promise<Admission> {
    return this.admitAs(message, intentOf(message), options);
  }

  /** {@link admit} of a message whose intent was read already. */
  private async admitAs(message: InboundMessage, intent: Intent, options: AdmitOptions = {}): Promise<Admission> {
    if (!this.access) return { allowed: true };
    const adapter = this.adapters.find(message.thread.platform);
    const refusal = await this.access.check(message, intent, adapter);
    if (!refusal) return { allowed: true };
    await this.access.tell(message, refusal, adapter, { always: options.slashCommand === true });
    return { allowed: false, message: refusal.text };
  }

  async onCancel(key: string): Promise<void> {
    const cancelled = await this.deps.queue.cancel(key);
    this.deps.logger.info({ thread: key, cancelled }, 'stop requested');
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
