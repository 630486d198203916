import type { Config } from '../config.js';
import { isThreadlabError, toThreadlabError, type ThreadlabError } from '../domain/errors.js';
import type { InboundCommand, InboundMessage } from '../domain/messages.js';
import { textReply, type Reply } from '../domain/reply.js';
import type { Platform } from '../domain/thread-key.js';
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
import type { SessionStore } from '../ports/session-store.js';
import { buildReply } from '../replies/build-reply.js';
import { replyBoundsFor } from '../replies/reply-bounds.js';
import { formatBytes, storeAttachments } from './attachments.js';
import { helpText } from './help.js';
import { describeUploads } from './previews.js';
import { rememberUploads, restoreUploads } from './upload-ledger.js';

export interface ThreadWorkerDeps {
  config: Config;
  logger: Logger;
  sandbox: Sandbox;
  llm?: LlmClient;
  store: SessionStore;
  renderer: ArtifactRenderer;
  adapterFor: (platform: Platform) => PlatformAdapter;
  metrics?: Pick<ThreadlabMetrics, 'error' | 'llm'>;
}

const HELP_NAMES: Record<Platform, { run: string; reset: string; files: string; help: string }> = {
  // reset and files are sent as messages in the thread: a Slack slash command cannot name its thread.
  slack: { run: '/interpreter run', reset: 'reset', files: 'files', help: '/interpreter help' },
  discord: { run: '/run', reset: '/reset', files: '/files', help: '/help' },
  web: { run: '```python …```', reset: 'Reset', files: 'Files', help: 'Help' },
  cli: {
    run: 'threadlab exec',
    reset: 'threadlab chat --reset',
    files: 'threadlab chat --files',
    help: 'threadlab --help',
  },
};

/**
 * Answers one job: attachments into the sandbox, commands, the interpreter turn, the reply.
 * Converts failures once, logs once and replies once.
 */
export class ThreadWorker {
  private readonly interpreter: Interpreter;

  constructor(private readonly deps: ThreadWorkerDeps) {
    this.interpreter = new Interpreter({
      llm: deps.llm,
      sandbox: deps.sandbox,
      store: deps.store,
      settings: deps.config.llm,
      sandboxTimeoutMs: deps.config.sandbox.timeoutMs,
      logger: deps.logger,
    });
  }

  async process(job: Job, context: JobContext): Promise<void> {
    const { message } = job;
    const adapter = this.deps.adapterFor(message.thread.platform);
    const log = this.deps.logger.child({ platform: message.thread.platform, thread: job.threadKey, job: job.id });
    const progress = adapter.progress(message);
    const started = Date.now();
    try {
      progress.update({ type: 'started' });
      const reply = await this.answer(job, adapter, progress, context.signal);
      // Shutdown, not the user, interrupted this run: no reply; the queue hands the job back or says so.
      if (isShutdown(context.signal)) throw context.signal.reason;
      if (job.attempt > 1) {
        // Files come back only where THREADLAB_DATA_DIR is shared between workers, so only variables are promised lost.
        reply.text = `_This message was picked up again after a worker stopped, so the thread's Python variables were reset._\n\n${reply.text}`;
      }
      await adapter.reply(message, reply);
      log.info({ durationMs: Date.now() - started, kind: reply.kind }, 'answered');
    } catch (err) {
      if (isShutdown(context.signal)) {
        log.warn('interrupted by shutdown; handing the job back');
        throw context.signal.reason;
      }
      const error = toThreadlabError(err);
      log.error({ err: error, code: error.code }, 'job failed');
      this.deps.metrics?.error(error.code);
      progress.update({ type: 'error', code: error.code, message: error.message });
      await adapter
        .reply(message, textReply(userFacing(error), error.code === 'cancelled' ? 'notice' : 'error'))
        .catch((replyErr) => log.error({ err: toThreadlabError(replyErr) }, 'could not post the error reply'));
    } finally {
      await progress.close().catch((err) => log.warn({ err: toThreadlabError(err) }, 'progress close failed'));
    }
  }

  private async answer(
    job: Job,
    adapter: PlatformAdapter,
    progress: ProgressSink,
    signal: AbortSignal,
  ): Promise<Reply> {
    const { message, threadKey } = job;
    const { config, sandbox, store } = this.deps;
    const maxBytes = config.sandbox.maxFileBytes;
    const notes: string[] = [];
    const command = message.command?.name;
    if (command !== 'reset' && command !== 'help' && !sandbox.isLive(threadKey)) {
      const again = await restoreUploads({ store, threadKey, adapter, sandbox, maxBytes, signal });
      if (again.restored.length)
        notes.push(`_Fetched this thread's uploads again: ${again.restored.map((p) => `\`${p}\``).join(', ')}._`);
      notes.push(...again.problems.map((p) => `⚠️ ${p}`));
    }
    if (message.command)
      return prefix(notes, await this.command(message, message.command, threadKey, progress, signal));
    const uploads = await storeAttachments({ message, threadKey, adapter, sandbox, maxBytes, signal });
    await rememberUploads({ store, threadKey, stored: uploads.stored, ttlMs: config.sandbox.filesTtlMs });
    notes.push(...uploads.problems.map((p) => `⚠️ ${p}`));
    const files = uploads.stored.map((s) => s.file);
    if (message.text.trim() === '') {
      if (files.length === 0) return textReply([...notes, 'Send a question or a ```python block.'].join('\n'));
      const previews = await sandbox.previewFiles(
        threadKey,
        files.map((f) => f.path),
        { signal },
      );
      return textReply([...notes, describeUploads(files, previews)].join('\n'));
    }
    return prefix(notes, await this.turn(message, message.text, threadKey, files, progress, signal));
  }

  private async turn(
    message: InboundMessage,
    text: string,
    threadKey: string,
    uploaded: Awaited<ReturnType<Sandbox['putFile']>>[],
    progress: ProgressSink,
    signal: AbortSignal,
  ): Promise<Reply> {
    const turn = await this.interpreter.handle(
      { threadKey, text, user: message.user, uploaded },
      { signal, onProgress: (event) => progress.update(event) },
    );
    return this.toReply(turn, threadKey, message.thread.platform);
  }

  private toReply(turn: TurnResult, threadKey: string, platform: Platform): Promise<Reply> {
    const { config, sandbox, renderer, metrics } = this.deps;
    metrics?.llm.tokens({ prompt: turn.usage.promptTokens, completion: turn.usage.completionTokens });
    return buildReply(turn, {
      sandbox,
      renderer,
      threadKey,
      limits: {
        maxImageDimensionPx: config.env.THREADLAB_REPLY_MAX_IMAGE_PX,
        maxOutputLines: config.env.THREADLAB_REPLY_MAX_OUTPUT_LINES,
        maxFileBytes: config.sandbox.maxFileBytes,
        bounds: replyBoundsFor(platform),
      },
    });
  }

  private async command(
    message: InboundMessage,
    command: InboundCommand,
    threadKey: string,
    progress: ProgressSink,
    signal: AbortSignal,
  ): Promise<Reply> {
    const { sandbox, store } = this.deps;
    switch (command.name) {
      case 'run': {
        const turn = await this.interpreter.runDirect(
          { threadKey, language: command.language, code: command.code },
          { signal, onProgress: (event) => progress.update(event) },
        );
        return this.toReply(turn, threadKey, message.thread.platform);
      }
      case 'reset':
        await sandbox.reset(threadKey);
        await resetThreadMemory(store, threadKey);
        return textReply('This thread was reset: variables, files and conversation memory are cleared.');
      case 'files': {
        const files = (await sandbox.listFiles(threadKey)).filter((f) => !f.path.startsWith('.threadlab/'));
        if (files.length === 0)
          return textReply('No files in this thread yet. Upload one, or have your code write to `/mnt/data`.');
        const lines = files.map((f) => `• \`${f.path}\` — ${formatBytes(f.bytes)}, ${f.mime}`);
        return textReply([`Files in \`/mnt/data\` (${files.length}):`, ...lines].join('\n'));
      }
      case 'help':
        return textReply(helpText(HELP_NAMES[message.thread.platform]));
      case 'stop':
        return textReply('Stopped.');
    }
  }
}

/** Puts notes (warnings, restored files) above a reply's text. */
function prefix(notes: string[], reply: Reply): Reply {
  if (notes.length) reply.text = `${notes.join('\n')}\n\n${reply.text}`;
  return reply;
}

/** Whether the queue aborted the job because this process is shutting down (a retryable cancel). */
function isShutdown(signal: AbortSignal): boolean {
  return signal.aborted && isThreadlabError(signal.reason, 'cancelled') && signal.reason.isRetryable;
}

/** What the user reads when a job fails for a reason that is not their code. */
function userFacing(error: ThreadlabError): string {
  switch (error.code) {
    case 'cancelled':
      return 'Stopped.';
    case 'docker_unreachable':
    case 'sandbox_image_missing':
    case 'sandbox_start_failed':
      return `The code sandbox is unavailable right now (${error.code}). An operator can run \`threadlab doctor\` to see why.`;
    default:
      return error.isPolicy
        ? error.message
        : `Something went wrong on our side (${error.code}); nothing of yours was lost. Please try again.`;
  }
}
