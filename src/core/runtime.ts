import type { Config } from '../config.js';
import { ThreadlabError, toThreadlabError } from '../domain/errors.js';
import type { InboundMessage } from '../domain/messages.js';
import { textReply, type Reply } from '../domain/reply.js';
import { threadKey, type Platform } from '../domain/thread-key.js';
import type { Logger } from '../logger.js';
import type { ArtifactRenderer } from '../ports/artifact-renderer.js';
import type { Job, JobContext, JobQueue } from '../ports/job-queue.js';
import type { LlmClient } from '../ports/llm-client.js';
import type { InboundHandler, InboundOutcome, PlatformAdapter } from '../ports/platform-adapter.js';
import type { Sandbox } from '../ports/sandbox.js';
import type { SessionStore } from '../ports/session-store.js';
import { ThreadWorker } from './thread-worker.js';
import type { ThreadlabMetrics } from '../ops/metrics.js';
import type { DropReason } from '../queue/queue-events.js';

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
  private readonly adapters = new Map<Platform, PlatformAdapter>();
  private readonly worker: ThreadWorker;
  private started: RuntimeStartOptions = {};
  /** The job running in each thread in this process (the queue runs one per thread at a time). */
  private readonly running = new Map<string, Promise<void>>();

  constructor(private readonly deps: RuntimeDeps) {
    for (const adapter of deps.adapters) this.adapters.set(adapter.platform, adapter);
    this.worker = new ThreadWorker({ ...deps, adapterFor: (p) => this.adapterFor(p) });
  }

  /** Registers an adapter after construction (the CLI's one-shot adapter, tests). */
  addAdapter(adapter: PlatformAdapter): void {
    this.adapters.set(adapter.platform, adapter);
  }

  adapterFor(platform: Platform): PlatformAdapter {
    const adapter = this.adapters.get(platform);
    if (!adapter) throw new ThreadlabError('internal', `No adapter for platform "${platform}" in this process.`);
    return adapter;
  }

  /** The local web chat's address, when it runs in this process. */
  webUrl(): string | undefined {
    return (this.adapters.get('web') as (PlatformAdapter & { url?: string }) | undefined)?.url;
  }

  async start(options: RuntimeStartOptions = {}): Promise<void> {
    this.started = { gateway: options.gateway ?? true, worker: options.worker ?? true };
    if (this.started.worker) await this.deps.queue.process((job, ctx) => this.processJob(job, ctx));
    if (this.started.gateway) {
      for (const adapter of this.adapters.values()) await adapter.start(this);
    }
  }

  async stop(): Promise<void> {
    const { logger, queue, sandbox, store } = this.deps;
    for (const adapter of this.adapters.values()) {
      await adapter.stop().catch((err) => logger.warn({ err, platform: adapter.platform }, 'adapter stop failed'));
    }
    await queue.close(this.deps.config.env.THREADLAB_SHUTDOWN_TIMEOUT_MS);
    await sandbox.close();
    await store.close();
  }

  async onMessage(message: InboundMessage): Promise<InboundOutcome> {
    const key = threadKey(message.thread);
    const log = this.deps.logger.child({ platform: message.thread.platform, thread: key, event: message.id });
    if (message.command?.name === 'stop') {
      const cancelled = await this.deps.queue.cancel(key);
      await this.safeReply(message, textReply(cancelled ? 'Stopped.' : 'Nothing is running in this thread.'), log);
      return { accepted: true };
    }
    const result = await this.deps.queue.enqueue(message);
    if (result.accepted) {
      log.info({ job: result.jobId, position: result.position }, 'message queued');
    } else if (result.reason === 'duplicate') {
      log.info({ job: result.jobId }, 'duplicate delivery ignored');
    } else {
      log.info({ reason: result.reason, retryAfterMs: result.retryAfterMs }, 'message refused by a limit');
      await this.safeReply(message, textReply(result.message), log);
      const { reason, retryAfterMs } = result;
      return { accepted: false, reason, retryAfterMs, message: result.message };
    }
    return { accepted: true };
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
    await this.running.get(key);
    if (this.started.worker) await this.deps.sandbox.reset(key);
    await this.deps.store.delete(key);
    this.deps.logger.info({ thread: key, sandboxRemoved: Boolean(this.started.worker) }, 'thread deleted');
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

  /** The worker side: one job, answered exactly once. */
  processJob(job: Job, context: JobContext): Promise<void> {
    const done = this.worker.process(job, context);
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

  private async safeReply(message: InboundMessage, reply: Reply, log: Logger): Promise<void> {
    try {
      await this.adapterFor(message.thread.platform).reply(message, reply);
    } catch (err) {
      log.error({ err: toThreadlabError(err) }, 'could not post a reply');
    }
  }
}
