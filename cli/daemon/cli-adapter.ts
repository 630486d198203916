import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { limitBytes } from '../../src/domain/byte-limit.js';
import { ThreadlabError } from '../../src/domain/errors.js';
import type { InboundAttachment, InboundMessage, InboundUser } from '../../src/domain/messages.js';
import { answerInbound } from '../../src/replies/inbound-answer.js';
import type { ProgressEvent } from '../../src/domain/progress-event.js';
import type { Logger } from '../../src/logger.js';
import type { Reply } from '../../src/domain/reply.js';
import { withTypedCommand } from '../../src/domain/typed-command.js';
import { cliProfile } from './profile.js';
import type {
  AttachmentDownload,
  InboundHandler,
  PlatformAdapter,
  ProgressSink,
} from '../../src/ports/platform-adapter.js';

interface Pending {
  onProgress: (event: ProgressEvent) => void;
  resolve: (reply: Reply) => void;
}

/**
 * The `threadlab chat` surface: a platform whose messages come from the command line and whose
 * replies go back to the waiting command. An attachment's `url` is the daemon's own staged copy of
 * bytes the caller sent (the daemon never opens a path the caller named).
 */
export class CliAdapter implements PlatformAdapter {
  readonly platform = 'cli' as const;
  readonly profile = cliProfile;
  readonly maxUploadBytes = Number.MAX_SAFE_INTEGER;
  private handler: InboundHandler | undefined;
  private readonly pending = new Map<string, Pending>();

  /** @param logger - where a verdict that could not be answered is logged. */
  constructor(private readonly logger: Logger) {}

  async start(handler: InboundHandler): Promise<void> {
    this.handler = handler;
  }

  async stop(): Promise<void> {
    this.handler = undefined;
  }

  /** Sends a message (`/export` or `/usage` typed alone is that command) through the core; resolves with its reply. */
  send(typed: InboundMessage, onProgress: (event: ProgressEvent) => void): Promise<Reply> {
    if (!this.handler) return Promise.reject(new ThreadlabError('internal', 'The CLI adapter is not started.'));
    const message = withTypedCommand(typed, cliProfile.commandTyping);
    const handler = this.handler;
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(message.id, { onProgress, resolve });
      // A verdict answered at once (a stop, a limit's refusal) is this message's reply.
      void handler
        .onMessage(message)
        .then((outcome) => answerInbound(this, message, outcome, this.logger))
        .catch((err) => {
          this.pending.delete(message.id);
          reject(err);
        });
    });
  }

  /** Stops the thread's run for `by` (the command line's user, who started it). */
  async cancel(threadKey: string, by: InboundUser): Promise<void> {
    await this.handler?.onCancel(threadKey, by);
  }

  async download(attachment: InboundAttachment, options: { maxBytes: number }): Promise<AttachmentDownload> {
    if (!attachment.url)
      throw new ThreadlabError('attachment_rejected', `No path for ${attachment.name}.`, { isPolicy: true });
    const info = await stat(attachment.url).catch(() => undefined);
    if (!info?.isFile())
      throw new ThreadlabError('attachment_rejected', `${attachment.url} is not a readable file.`, { isPolicy: true });
    if (info.size > options.maxBytes) {
      throw new ThreadlabError(
        'attachment_rejected',
        `${attachment.url} is ${info.size} bytes, over the limit of ${options.maxBytes}.`,
        { isPolicy: true },
      );
    }
    // The file can grow after the check: the stream counts what it actually reads.
    const stream = limitBytes(createReadStream(attachment.url), {
      maxBytes: options.maxBytes,
      tooLarge: () =>
        new ThreadlabError('attachment_rejected', `${attachment.url} is over the limit of ${options.maxBytes} bytes.`, {
          isPolicy: true,
        }),
    });
    return { stream, bytes: info.size };
  }

  progress(message: InboundMessage): ProgressSink {
    return {
      update: (event) => this.pending.get(message.id)?.onProgress(event),
      close: async () => {},
    };
  }

  async reply(message: InboundMessage, reply: Reply): Promise<void> {
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    pending.resolve(reply);
  }
}
