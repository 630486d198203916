import {
  Client,
  Events,
  GatewayIntentBits,
  Partials,
  REST,
  type CommandInteraction,
  type ModalSubmitInteraction,
} from 'discord.js';
import type { InboundAttachment, InboundMessage } from '../../src/domain/messages.js';
import type { Reply } from '../../src/domain/reply.js';
import { threadKey } from '../../src/domain/thread-key.js';
import type { Logger } from '../../src/logger.js';
import type { ArtifactRenderer } from '../../src/ports/artifact-renderer.js';
import type {
  AttachmentDownload,
  InboundHandler,
  PlatformAdapter,
  PostedReply,
  ProgressSink,
} from '../../src/ports/platform-adapter.js';
import type { GovernanceSurface } from '../../src/ports/governance.js';
import { downloadAttachment } from './download.js';
import { planReply } from './plan-reply.js';
import { DiscordProgressSink } from './progress-sink.js';
import { createBotRest } from './bot-rest.js';
import { sendMessages } from './send-reply.js';
import { ChannelTarget } from './target.js';
import { postApproval } from './approval.js';
import { withFeedbackRow } from './feedback.js';
import { answerRefOf } from '../../src/domain/feedback.js';
import type { ApprovalPrompt, ApprovalView } from '../../src/ports/approval.js';
import { ThreadFollower } from './thread-follower.js';
import { notifyPrivately } from './private-notice.js';
import { updateMessages } from './update-reply.js';
import { discordProfile } from './profile.js';
import { handleGatewayEdit, handleGatewayMessage } from './gateway-messages.js';
import { InteractionRouter } from './interaction-router.js';
import { ReplyTargets } from './reply-targets.js';

export interface DiscordAdapterOptions {
  /** The bot token (DISCORD_TOKEN). */
  token: string;
  /** The application id (DISCORD_APPLICATION_ID). */
  applicationId: string;
  /** REST base, e.g. `http://127.0.0.1:PORT/api` (DISCORD_API_URL); the gateway URL is discovered through it. */
  apiUrl?: string;
  /** Upload limit when Discord gives none for an interaction, in bytes (THREADLAB_DISCORD_MAX_UPLOAD_MB). */
  maxUploadBytes: number;
  logger: Logger;
  /** Renders contact sheets when a reply has more than 10 images. */
  renderer?: ArtifactRenderer;
  /** Longest side of a contact sheet, in pixels. @defaultValue DEFAULT_MAX_IMAGE_DIMENSION_PX (2048) */
  maxImageDimensionPx?: number;
  /** Minimum time between status message edits, in ms. @defaultValue 1000 */
  progressThrottleMs?: number;
  /** How long `start` waits for the gateway to be ready, in ms. @defaultValue 30000 */
  readyTimeoutMs?: number;
  /** How long an interaction's token answers, in ms (Discord: 15 minutes). @defaultValue 900000 */
  interactionTokenLifetimeMs?: number;
  /**
   * Where the bot is no member, how long before the token's end a still-running job says so, in ms.
   * @defaultValue 60000
   */
  expiryWarningMs?: number;
}

/**
 * Discord through discord.js 14. The gateway (started by `start`) maps messages and interactions to
 * InboundMessages; `download`, `progress` and `reply` use REST only, so a worker without a gateway
 * connection can answer.
 */
export class DiscordAdapter implements PlatformAdapter, GovernanceSurface {
  readonly platform = 'discord' as const;
  readonly profile = discordProfile;
  readonly maxUploadBytes: number;
  /** The bot's one REST client, the gateway client's too: a 429 met by any writer holds its bucket for all. */
  private readonly rest: REST;
  /** The same client for live statuses, which are refused rather than held by a rate limit (see createBotRest). */
  private readonly statusRest: REST;
  private readonly log: Logger;
  private readonly sinks = new Map<string, DiscordProgressSink>();
  private client: Client | undefined;
  private readonly follower = new ThreadFollower();
  /** Slash commands the core is deciding on, not acknowledged yet (at most Discord's 3 s each). */
  private readonly pendingCommands = new Map<string, CommandInteraction | ModalSubmitInteraction>();
  /** Where each message's answer goes, with each interaction's follow-up count and token state. */
  private readonly targets: ReplyTargets;

  constructor(private readonly options: DiscordAdapterOptions) {
    this.maxUploadBytes = options.maxUploadBytes;
    this.log = options.logger.child({ platform: 'discord' });
    ({ rest: this.rest, statusRest: this.statusRest } = createBotRest({
      token: options.token,
      ...(options.apiUrl ? { apiUrl: options.apiUrl } : {}),
    }));
    this.targets = new ReplyTargets({
      rest: this.rest,
      maxUploadBytes: options.maxUploadBytes,
      ...(options.interactionTokenLifetimeMs !== undefined
        ? { interactionTokenLifetimeMs: options.interactionTokenLifetimeMs }
        : {}),
      ...(options.expiryWarningMs !== undefined ? { expiryWarningMs: options.expiryWarningMs } : {}),
    });
  }

  async start(handler: InboundHandler): Promise<void> {
    const client = new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.MessageContent,
        GatewayIntentBits.DirectMessages,
      ],
      // Message: an edit of a message sent before this connection arrives as a partial to fetch.
      partials: [Partials.Channel, Partials.Message],
      ...(this.options.apiUrl ? { rest: { api: this.options.apiUrl } } : {}),
    });
    // Its calls (thread creation, interaction replies) share the bot's buckets with every other writer.
    client.rest = this.rest;
    this.client = client;
    const gateway = { follower: this.follower, handler, answers: this, logger: this.log };
    const interactions = new InteractionRouter({
      rest: this.rest,
      logger: this.log,
      handler,
      answers: this,
      pending: this.pendingCommands,
      follower: this.follower,
    });
    client.on(Events.MessageCreate, (message) => void handleGatewayMessage(gateway, message));
    client.on(Events.MessageUpdate, (old, updated) => void handleGatewayEdit(gateway, old, updated));
    client.on(Events.InteractionCreate, (interaction) => void interactions.route(interaction));
    client.on(Events.Error, (err) => this.log.error({ err }, 'Discord client error'));
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('Discord gateway not ready in time')),
        this.options.readyTimeoutMs ?? 30_000,
      );
      client.once(Events.ClientReady, () => {
        clearTimeout(timer);
        resolve();
      });
    });
    await client.login(this.options.token);
    await ready;
    this.log.info({ user: client.user?.tag }, 'connected to Discord');
  }

  async stop(): Promise<void> {
    await Promise.all([...this.sinks.values()].map((s) => s.finish()));
    await this.client?.destroy();
    this.client = undefined;
  }

  download(
    attachment: InboundAttachment,
    options: { maxBytes: number; signal?: AbortSignal },
  ): Promise<AttachmentDownload> {
    return downloadAttachment(attachment, options);
  }

  progress(message: InboundMessage): ProgressSink {
    const sink = new DiscordProgressSink({
      target: this.targets.targetFor(message),
      statusTarget: this.targets.targetFor(message, this.statusRest),
      threadKey: threadKey(message.thread),
      logger: this.log.child({ thread: threadKey(message.thread) }),
      statusIsOriginal: message.replyContext?.kind === 'interaction',
      onClose: () => {
        this.sinks.delete(message.id);
        this.targets.forget(message.id);
      },
      ...this.targets.expiryNotice(message),
      ...(this.options.progressThrottleMs !== undefined ? { throttleMs: this.options.progressThrottleMs } : {}),
    });
    this.sinks.set(message.id, sink);
    return sink;
  }

  async reply(message: InboundMessage, reply: Reply): Promise<PostedReply> {
    return this.place(message, reply);
  }

  /** Replaces an earlier answer in place: its messages are edited, their attachments replaced by the new files. */
  async updateReply(message: InboundMessage, previous: PostedReply, reply: Reply): Promise<PostedReply> {
    return this.place(message, reply, previous.messageIds);
  }

  /**
   * Code the model wants to run, with Run and Skip buttons, in the thread; where the bot is no member, a follow-up
   * of the interaction (its webhook is the only way in).
   */
  askApproval(message: InboundMessage, view: ApprovalView): Promise<ApprovalPrompt> {
    const ctx = message.replyContext ?? {};
    if (ctx.webhookOnly === true)
      return postApproval(this.targets.targetFor(message, this.rest, { followUpsOnly: true }), view);
    const channelId = typeof ctx.channelId === 'string' ? ctx.channelId : message.thread.thread;
    return postApproval(new ChannelTarget(this.rest, channelId), view);
  }

  /**
   * Tells the user something only they see: an ephemeral response to a slash command (its first, when the
   * core refused it before it was deferred), else a direct message. False when Discord would not take it
   * (the user's DMs are closed: code 50007), so the core says it in the thread.
   */
  notifyPrivately(message: InboundMessage, text: string): Promise<boolean> {
    return notifyPrivately({ rest: this.rest, logger: this.log, pending: this.pendingCommands }, message, text);
  }

  private async place(message: InboundMessage, reply: Reply, previous?: string[]): Promise<PostedReply> {
    await this.sinks.get(message.id)?.finish({ replied: true });
    const limitBytes = this.targets.uploadLimitFor(message);
    const plannedAll = await planReply(reply, {
      uploadLimitBytes: limitBytes,
      ...(this.options.renderer ? { renderer: this.options.renderer } : {}),
      ...(this.options.maxImageDimensionPx ? { maxImageDimensionPx: this.options.maxImageDimensionPx } : {}),
    });
    // 👍/👎 under the model's answers only (feedback.ts).
    const planned = reply.feedback ? withFeedbackRow(plannedAll, answerRefOf(message)) : plannedAll;
    const target = this.targets.targetFor(message);
    const options = { limitBytes, logger: this.log.child({ thread: threadKey(message.thread) }) };
    const messageIds = previous
      ? await updateMessages(target, planned, previous, options)
      : await sendMessages(target, planned, options);
    return { messageIds };
  }
}
