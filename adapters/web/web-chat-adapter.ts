import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { limitBytes } from '../../src/domain/byte-limit.js';
import type { InboundAttachment, InboundMessage } from '../../src/domain/messages.js';
import { ThreadlabError } from '../../src/domain/errors.js';
import type { Reply } from '../../src/domain/reply.js';
import type { Logger } from '../../src/logger.js';
import type {
  AttachmentDownload,
  InboundHandler,
  PlatformAdapter,
  PostedReply,
  ProgressSink,
} from '../../src/ports/platform-adapter.js';
import type { GovernanceSurface } from '../../src/ports/governance.js';
import { apiRoutes } from './api-routes.js';
import { isLoopbackHost } from './auth.js';
import { EventHub, type EventHubOptions } from './event-hub.js';
import { connectionCaps, type ConnectionCaps } from './connection-caps.js';
import { readOpenFileLimit, type OpenFileLimit } from './open-file-limit.js';
import { approvalRoutes, WebApprovals } from './approval-routes.js';
import { feedbackRoute } from './feedback-route.js';
import type { ApprovalPrompt, ApprovalView } from '../../src/ports/approval.js';
import { MessageIntake } from './message-intake.js';
import { answerInbound } from '../../src/replies/inbound-answer.js';
import { serializeProgress, storeReply } from './reply-mapping.js';
import { staticRoutes } from './static-routes.js';
import { webHistoryDir, WebThreadStore } from './thread-store.js';
import type { WebMessage } from './types.js';
import { WebServer, type WebServerLimits } from './web-server.js';
import { webProfile } from './profile.js';

export interface WebChatAdapterOptions {
  /** Address to bind. @defaultValue '127.0.0.1' */
  host?: string;
  /** Port to bind; 0 picks a free one (read it back from {@link WebChatAdapter.url}). @defaultValue 8787 */
  port?: number;
  /** Access token; required when `host` is not loopback. Checked on every page and API request. */
  token?: string;
  /** Threads, messages, uploads and reply files are kept under {@link webHistoryDir}. */
  dataDir: string;
  /** Largest single upload, in bytes; the files of one message together may hold as much. @defaultValue 100 MiB */
  maxUploadBytes?: number;
  /** Longest message text, in UTF-8 bytes. @defaultValue 100000 */
  maxTextBytes?: number;
  /** Threads kept; creating more is refused until some are deleted. @defaultValue 10000 */
  maxThreads?: number;
  /** Caps of event streams, replay buffers and idle threads in memory. */
  events?: EventHubOptions;
  /**
   * Connection and time limits of the HTTP server. `maxConnections`, like `events.maxStreams`, is lowered
   * to fit the open-file limit (see connectionCaps).
   */
  server?: WebServerLimits;
  /** The open-file limit the caps must fit; null when none is known. @defaultValue this process's (readOpenFileLimit) */
  openFiles?: OpenFileLimit | null;
  logger: Logger;
}

const MiB = 1024 * 1024;

/**
 * The local web chat: an HTTP server (JSON + server-sent events) and a page. It only maps requests to
 * InboundMessages and Replies/ProgressEvents to stored messages and events; behaviour lives in the core.
 */
export class WebChatAdapter implements PlatformAdapter, GovernanceSurface {
  readonly platform = 'web' as const;
  readonly profile = webProfile;
  readonly maxUploadBytes: number;
  private readonly store: WebThreadStore;
  private readonly hub: EventHub;
  /** Code waiting for Run or Skip, shown on the thread's pages. */
  private readonly approvals: WebApprovals;
  private readonly intake: MessageIntake;
  private readonly server: WebServer;
  private readonly logger: Logger;
  private handler: InboundHandler | undefined;
  private address: { host: string; port: number } | undefined;
  /** The connection caps in force and the open-file limit they were derived from, logged at start. */
  private readonly caps: ConnectionCaps & { openFiles: OpenFileLimit | undefined };

  constructor(private readonly options: WebChatAdapterOptions) {
    const host = options.host ?? '127.0.0.1';
    if (!isLoopbackHost(host) && !options.token) {
      throw new ThreadlabError(
        'config_invalid',
        `The web chat binds ${host}, which is not loopback: set THREADLAB_WEB_TOKEN.`,
        { isPolicy: true },
      );
    }
    this.maxUploadBytes = options.maxUploadBytes ?? 100 * MiB;
    this.logger = options.logger.child({ platform: 'web' });
    this.store = new WebThreadStore(webHistoryDir(options.dataDir));
    const openFiles = options.openFiles === undefined ? readOpenFileLimit() : (options.openFiles ?? undefined);
    this.caps = {
      ...connectionCaps({
        maxConnections: options.server?.maxConnections ?? 1500,
        maxStreams: options.events?.maxStreams ?? 1000,
        openFiles,
      }),
      openFiles,
    };
    this.hub = new EventHub({ ...options.events, maxStreams: this.caps.maxStreams });
    const handler = (): InboundHandler => {
      if (!this.handler) throw new Error('the web chat is not started');
      return this.handler;
    };
    this.intake = new MessageIntake({
      store: this.store,
      hub: this.hub,
      handler,
      answer: (inbound, outcome) => answerInbound(this, inbound, outcome, this.logger),
    });
    this.approvals = new WebApprovals(this.hub);
    const routes = [
      ...staticRoutes(),
      ...apiRoutes({
        store: this.store,
        hub: this.hub,
        intake: this.intake,
        handler,
        limits: {
          maxFileBytes: this.maxUploadBytes,
          maxFilesTotalBytes: this.maxUploadBytes,
          maxTextBytes: options.maxTextBytes ?? 100_000,
        },
        maxThreads: options.maxThreads ?? 10_000,
        logger: this.logger,
      }),
      ...approvalRoutes({ approvals: this.approvals, handler, store: this.store }),
      feedbackRoute({ handler, store: this.store }),
    ];
    this.server = new WebServer({
      host,
      port: options.port ?? 8787,
      token: options.token,
      routes,
      logger: this.logger,
      limits: {
        ...options.server,
        maxConnections: this.caps.maxConnections,
        refusalConnections: this.caps.refusalConnections,
      },
    });
  }

  /** The base URL the chat is served at (the real port once started). */
  get url(): string {
    if (!this.address) throw new Error('the web chat is not started');
    const host = this.address.host.includes(':') ? `[${this.address.host}]` : this.address.host;
    return `http://${host}:${this.address.port}`;
  }

  async start(handler: InboundHandler): Promise<void> {
    if (this.handler) throw new Error('the web chat is already started');
    this.handler = handler;
    await this.store.init();
    const address = await this.server.listen();
    this.address = { host: address.address, port: address.port };
    this.logger.info({ url: this.url }, 'web chat listening');
    const { openFiles, ...caps } = this.caps;
    this.logger.info(
      { ...caps, openFilesSoft: openFiles?.soft ?? 'unknown', openFilesHard: openFiles?.hard ?? 'unknown' },
      'web chat connection caps (from the open-file limit)',
    );
  }

  async stop(): Promise<void> {
    this.hub.close();
    await this.server.close();
    this.handler = undefined;
  }

  async download(
    attachment: InboundAttachment,
    options: { maxBytes: number; signal?: AbortSignal },
  ): Promise<AttachmentDownload> {
    options.signal?.throwIfAborted();
    const reject = (message: string) =>
      new ThreadlabError('attachment_rejected', message, { isPolicy: true, details: { name: attachment.name } });
    if (attachment.inlineBase64 !== undefined) {
      const data = Buffer.from(attachment.inlineBase64, 'base64');
      if (data.length > options.maxBytes) throw reject(`${attachment.name} is larger than ${options.maxBytes} bytes.`);
      return { stream: Readable.from([data]), bytes: data.length };
    }
    const id = /^web-upload:(.+)$/.exec(attachment.url ?? '')?.[1];
    const meta = id === undefined ? undefined : await this.store.blobMeta(id);
    if (!meta) throw reject(`${attachment.name} is not an upload of this web chat.`);
    const size = await this.store.blobSize(meta.id);
    if (size === undefined) throw reject(`${attachment.name} is no longer stored.`);
    if (size > options.maxBytes)
      throw reject(`${attachment.name} is ${size} bytes; the limit is ${options.maxBytes} bytes.`);
    // The blob could still be replaced on disk: the stream counts what it actually reads.
    const file = createReadStream(this.store.blobPath(meta.id), options.signal ? { signal: options.signal } : {});
    const stream = limitBytes(file, {
      maxBytes: options.maxBytes,
      tooLarge: () => reject(`${attachment.name} is larger than ${options.maxBytes} bytes.`),
    });
    return { stream, bytes: size };
  }

  progress(message: InboundMessage): ProgressSink {
    const threadId = message.thread.thread;
    this.hub.jobStarted(threadId);
    let closed = false;
    // Events of a message the core is still accepting wait for it, so they follow it on the stream.
    const publish = (send: () => void) => {
      void this.intake.afterMessage(message.id, async () => send());
    };
    return {
      update: (event) => {
        if (!closed) publish(() => this.hub.publish(threadId, 'progress', serializeProgress(event)));
      },
      close: async () => {
        if (closed) return;
        closed = true;
        this.hub.jobEnded(threadId);
        publish(() => this.hub.publish(threadId, 'idle', { messageId: message.id }));
      },
    };
  }

  /** Code the model wants to run, shown with Run and Skip on the thread's pages (the `approval` event). */
  async askApproval(message: InboundMessage, view: ApprovalView): Promise<ApprovalPrompt> {
    return this.approvals.ask(message, view);
  }

  async reply(message: InboundMessage, reply: Reply): Promise<PostedReply | void> {
    // Where the answer landed, also when it waited for the message to be stored: the edit ledger needs it.
    return this.intake.afterMessage(message.id, () => this.post(message, reply));
  }

  /**
   * Replaces an earlier answer in place: a revision of the bot message (same id, new text, images and
   * files) is stored and sent as a `reply` event, which the page shows where the old answer stood.
   */
  async updateReply(message: InboundMessage, previous: PostedReply, reply: Reply): Promise<PostedReply> {
    const id = previous.messageIds[0];
    const old = id === undefined ? undefined : await this.store.findMessage(message.thread.thread, id);
    if (!old || old.role !== 'bot') throw new ThreadlabError('platform_api', 'The answer to update is gone.');
    return this.post(message, reply, old);
  }

  private async post(message: InboundMessage, reply: Reply, replaces?: WebMessage): Promise<PostedReply> {
    const threadId = message.thread.thread;
    if (!this.store.getThread(threadId)) {
      this.logger.warn({ thread: threadId }, 'reply for a deleted web thread dropped');
      return { messageIds: [] };
    }
    const stored = await storeReply(this.store, threadId, reply);
    if (replaces) {
      stored.id = replaces.id;
      stored.createdAtMs = replaces.createdAtMs;
      stored.revisedAtMs = Date.now();
    }
    await this.store.appendMessage(stored);
    this.hub.publish(threadId, 'reply', stored);
    return { messageIds: [stored.id] };
  }
}
