import { Readable, Writable } from 'node:stream';
import { ThreadlabError } from '../../src/domain/errors.js';
import type { InboundAttachment, InboundMessage } from '../../src/domain/messages.js';
import type { ProgressEvent } from '../../src/domain/progress-event.js';
import { createLogger } from '../../src/logger.js';
import { answerInbound } from '../../src/replies/inbound-answer.js';
import type { Reply } from '../../src/domain/reply.js';
import type { Platform } from '../../src/domain/thread-key.js';
import type {
  AttachmentDownload,
  InboundHandler,
  PlatformAdapter,
  PostedReply,
  ProgressSink,
} from '../../src/ports/platform-adapter.js';
import type { PlatformProfile } from '../../src/ports/platform-profile.js';
import { profileOf } from './profiles.js';

const silent = createLogger({ destination: new Writable({ write: (_c, _e, done) => done() }) });

/**
 * A PlatformAdapter that records what the core asks of it: replies, progress events, downloads.
 * Attachments are served from `files` (by attachment id); tests await `nextReply()`.
 */
export class RecordingAdapter implements PlatformAdapter {
  readonly maxUploadBytes = 10 * 1024 * 1024;
  handler: InboundHandler | undefined;
  readonly replies: { message: InboundMessage; reply: Reply }[] = [];
  readonly progress_: { messageId: string; event: ProgressEvent }[] = [];
  readonly closedSinks: string[] = [];
  /** Each status's close waits for this before it is recorded (a slow platform taking a status down). */
  closeGate: Promise<void> = Promise.resolve();
  readonly files = new Map<string, Buffer | Error>();
  private waiters: ((r: { message: InboundMessage; reply: Reply }) => void)[] = [];
  private seen = 0;

  /** `profile` defaults to the real adapter's of `platform`. */
  constructor(
    readonly platform: Platform = 'web',
    readonly profile: PlatformProfile = profileOf(platform),
  ) {}

  /** Like every adapter, gives the core's verdict on a message its one answer (here: recorded as a reply). */
  async start(handler: InboundHandler): Promise<void> {
    this.handler = {
      onMessage: async (message) => {
        const outcome = await handler.onMessage(message);
        await answerInbound(this, message, outcome, silent);
        return outcome;
      },
      onCancel: (key, by) => handler.onCancel(key, by),
      ...(handler.onThreadDeleted ? { onThreadDeleted: handler.onThreadDeleted.bind(handler) } : {}),
      ...(handler.onApproval ? { onApproval: handler.onApproval.bind(handler) } : {}),
      ...(handler.admit ? { admit: handler.admit.bind(handler) } : {}),
    };
  }

  async stop(): Promise<void> {}

  async download(attachment: InboundAttachment, options: { maxBytes: number }): Promise<AttachmentDownload> {
    const data = this.files.get(attachment.id);
    if (data === undefined)
      throw new ThreadlabError('attachment_rejected', `no such file ${attachment.id}`, { isPolicy: true });
    if (data instanceof Error) throw data;
    if (data.length > options.maxBytes)
      throw new ThreadlabError('attachment_rejected', 'too large', { isPolicy: true });
    return { stream: Readable.from([data]), bytes: data.length };
  }

  progress(message: InboundMessage): ProgressSink {
    return {
      update: (event) => this.progress_.push({ messageId: message.id, event }),
      close: async () => {
        await this.closeGate;
        this.closedSinks.push(message.id);
      },
    };
  }

  async reply(message: InboundMessage, reply: Reply): Promise<PostedReply | void> {
    const entry = { message, reply };
    this.replies.push(entry);
    this.waiters.shift()?.(entry);
  }

  /** Resolves with the next reply not yet consumed by an earlier call. */
  nextReply(timeoutMs = 5000): Promise<{ message: InboundMessage; reply: Reply }> {
    const index = this.seen++;
    if (this.replies[index]) return Promise.resolve(this.replies[index]!);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no reply #${index + 1} within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve(this.replies[index]!);
      });
    });
  }
}
