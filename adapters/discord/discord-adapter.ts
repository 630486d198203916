import {
  Client,
  Events,
  GatewayIntentBits,
  MessageFlags,
  Partials,
  REST,
  type ButtonInteraction,
  type CommandInteraction,
  type Interaction,
  type Message,
  type MessageContextMenuCommandInteraction,
  type ModalSubmitInteraction,
  type OmitPartialGroupDMChannel,
  type PartialMessage,
} from 'discord.js';
import { toThreadlabError } from '../../src/domain/errors.js';
import { LANGUAGES } from '../../src/domain/execution.js';
import type { InboundAttachment, InboundMessage, InboundUser } from '../../src/domain/messages.js';
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
import { editOf } from './map-edit.js';
import { botIsPresent, modalWanted, parseStopButtonId, toCommandMessage } from './map-interaction.js';
import { planReply } from './plan-reply.js';
import { DiscordProgressSink } from './progress-sink.js';
import { createBotRest } from './bot-rest.js';
import { sendMessages } from './send-reply.js';
import { ChannelTarget, InteractionTarget, type InteractionSession, type ReplyTarget } from './target.js';
import { DirectMessageTarget } from './dm-target.js';
import { modalFor, toModalMessage } from './modal.js';
import { handleApprovalButton, parseApprovalButtonId, postApproval } from './approval.js';
import {
  handleFeedbackButton,
  handleFeedbackModal,
  parseFeedbackButtonId,
  parseFeedbackModalId,
  withFeedbackRow,
} from './feedback.js';
import { answerRefOf } from '../../src/domain/feedback.js';
import type { ApprovalPrompt, ApprovalView } from '../../src/ports/approval.js';
import { ThreadFollower } from './thread-follower.js';
import { notifyPrivately } from './private-notice.js';
import { updateMessages } from './update-reply.js';
import { viewFromCommand, viewFromMessageCommand, viewFromModal } from './views.js';
import { RUN_CODE_COMMAND } from './map-message-command.js';
import { runMessageCommand, runReference } from './run-message.js';
import { discordProfile } from './profile.js';
import { memberRoleIds } from './member-roles.js';
import { answerInbound, tellPrivately } from '../../src/replies/inbound-answer.js';

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

/** Discord's interaction token lifetime ("Interaction tokens are valid for 15 minutes"), in ms. */
const TOKEN_LIFETIME_MS = 15 * 60_000;
/** Follow-ups Discord takes for an interaction of a user install used where the app is not installed. */
const USER_INSTALL_FOLLOW_UPS = 5;
/** Interactions whose shared webhook state is kept at once (each is dropped when its job's status closes). */
const MAX_SESSIONS = 1000;

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
  /** Each interaction's follow-up count and token state, shared by its answer, status and notices. */
  private readonly sessions = new Map<string, InteractionSession>();

  constructor(private readonly options: DiscordAdapterOptions) {
    this.maxUploadBytes = options.maxUploadBytes;
    this.log = options.logger.child({ platform: 'discord' });
    ({ rest: this.rest, statusRest: this.statusRest } = createBotRest({
      token: options.token,
      ...(options.apiUrl ? { apiUrl: options.apiUrl } : {}),
    }));
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
    client.on(Events.MessageCreate, (message) => void this.onGatewayMessage(message, handler));
    client.on(Events.MessageUpdate, (old, updated) => void this.onGatewayEdit(old, updated, handler));
    client.on(Events.InteractionCreate, (interaction) => void this.onInteraction(interaction, handler));
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
      target: this.targetFor(message),
      statusTarget: this.targetFor(message, this.statusRest),
      threadKey: threadKey(message.thread),
      logger: this.log.child({ thread: threadKey(message.thread) }),
      statusIsOriginal: message.replyContext?.kind === 'interaction',
      onClose: () => {
        this.sinks.delete(message.id);
        this.sessions.delete(message.id);
      },
      ...this.expiryNotice(message),
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
      return postApproval(this.targetFor(message, this.rest, { followUpsOnly: true }), view);
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
    const limitBytes = this.uploadLimitFor(message);
    const plannedAll = await planReply(reply, {
      uploadLimitBytes: limitBytes,
      ...(this.options.renderer ? { renderer: this.options.renderer } : {}),
      ...(this.options.maxImageDimensionPx ? { maxImageDimensionPx: this.options.maxImageDimensionPx } : {}),
    });
    // 👍/👎 under the model's answers only (feedback.ts).
    const planned = reply.feedback ? withFeedbackRow(plannedAll, answerRefOf(message)) : plannedAll;
    const target = this.targetFor(message);
    const options = { limitBytes, logger: this.log.child({ thread: threadKey(message.thread) }) };
    const messageIds = previous
      ? await updateMessages(target, planned, previous, options)
      : await sendMessages(target, planned, options);
    return { messageIds };
  }

  /** The interaction's own limit when Discord gave one, else the configured limit. */
  private uploadLimitFor(message: InboundMessage): number {
    const fromInteraction = message.replyContext?.attachmentSizeLimit;
    return typeof fromInteraction === 'number' && fromInteraction > 0 ? fromInteraction : this.maxUploadBytes;
  }

  /**
   * Where a message's answer goes: the interaction's webhook for a command (the channel once its token ran out),
   * else the channel. Where the bot is no member (`webhookOnly`), nothing goes to that channel with the bot token:
   * past the token's lifetime or Discord's 5 follow-ups, the answer goes to the user's DM with the bot.
   */
  private targetFor(message: InboundMessage, rest: REST = this.rest, o: { followUpsOnly?: boolean } = {}): ReplyTarget {
    const ctx = message.replyContext ?? {};
    const channel = new ChannelTarget(rest, typeof ctx.channelId === 'string' ? ctx.channelId : message.thread.thread);
    if (ctx.kind !== 'interaction' || typeof ctx.interactionToken !== 'string' || typeof ctx.applicationId !== 'string')
      return channel;
    const webhookOnly = ctx.webhookOnly === true;
    return new InteractionTarget(rest, {
      applicationId: ctx.applicationId,
      token: ctx.interactionToken,
      fallback: webhookOnly ? new DirectMessageTarget(rest, message.user.id) : channel,
      session: this.sessionOf(message.id),
      ...(typeof ctx.interactionAtMs === 'number' ? { expiresAtMs: ctx.interactionAtMs + this.tokenLifetimeMs } : {}),
      ...(webhookOnly ? { maxFollowUps: USER_INSTALL_FOLLOW_UPS } : {}),
      ...(o.followUpsOnly ? { followUpsOnly: true } : {}),
    });
  }

  private get tokenLifetimeMs(): number {
    return this.options.interactionTokenLifetimeMs ?? TOKEN_LIFETIME_MS;
  }

  private sessionOf(messageId: string): InteractionSession {
    let session = this.sessions.get(messageId);
    if (!session) {
      if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
      session = { followUps: 0, expired: false };
      this.sessions.set(messageId, session);
    }
    return session;
  }

  /** Where only the interaction's token reaches the user, a job still running near its end says where the answer will go. */
  private expiryNotice(message: InboundMessage): {
    expiryNotice?: { atMs: number; target: ReplyTarget; text: string };
  } {
    const ctx = message.replyContext ?? {};
    if (ctx.webhookOnly !== true || typeof ctx.interactionAtMs !== 'number') return {};
    const minutes = Math.round(this.tokenLifetimeMs / 60_000);
    return {
      expiryNotice: {
        atMs: ctx.interactionAtMs + this.tokenLifetimeMs - (this.options.expiryWarningMs ?? 60_000),
        target: this.targetFor(message, this.rest, { followUpsOnly: true }),
        text:
          `⏳ Still running. Discord lets me answer a command here for ${minutes} minutes only, and that time is ` +
          'nearly up: when it finishes, the answer comes to you in a direct message from me.',
      },
    };
  }

  private async onGatewayMessage(message: Message, handler: InboundHandler): Promise<void> {
    try {
      const routed = await this.follower.route(message, this.admitWith(handler));
      const inbound = routed && (await runReference(message, routed));
      if (inbound) await answerInbound(this, inbound, await handler.onMessage(inbound), this.log);
    } catch (err) {
      this.log.error(
        { err: toThreadlabError(err), message: message.id },
        'could not hand a Discord message to the core',
      );
    }
  }

  /**
   * MESSAGE_UPDATE: a person's edit of a message's text re-runs it. A partial update (a message sent
   * before this connection) is fetched first; a bot's edit, an embed-only update (a link preview) and
   * the same text are ignored.
   */
  private async onGatewayEdit(
    old: OmitPartialGroupDMChannel<Message | PartialMessage>,
    updated: OmitPartialGroupDMChannel<Message | PartialMessage>,
    handler: InboundHandler,
  ): Promise<void> {
    try {
      if (updated.author?.bot || updated.webhookId) return;
      const message = updated.partial ? await updated.fetch() : updated;
      if (message.author.bot || !message.editedTimestamp) return;
      const previousText = old.partial ? undefined : (old.content ?? undefined);
      if (previousText === message.content) return;
      const inbound = await this.follower.route(message, this.admitWith(handler));
      if (!inbound) return;
      const edit = editOf(inbound, message.editedTimestamp, previousText);
      await answerInbound(this, edit, await handler.onMessage(edit), this.log);
    } catch (err) {
      this.log.error({ err: toThreadlabError(err), message: updated.id }, 'could not hand a Discord edit to the core');
    }
  }

  /** The handler's access check as the thread follower asks it (none: everything is admitted); a refusal is told here. */
  private admitWith(handler: InboundHandler): ((message: InboundMessage) => Promise<boolean>) | undefined {
    if (!handler.admit) return undefined;
    return async (message) => {
      const admission = await handler.admit!(message);
      if (!admission.allowed && admission.tell) await tellPrivately(this, message, admission.message, this.log);
      return admission.allowed;
    };
  }

  /**
   * A Stop press: the core's verdict (who may stop) is the one ephemeral answer. Discord drops a press not
   * acknowledged within 3 s: a verdict slower than {@link STOP_ACK_MS} (a cancel still telling queued
   * messages) is acknowledged as stopping, and a refusal arriving after that follows up, privately.
   */
  private async onStopButton(interaction: ButtonInteraction, key: string, handler: InboundHandler): Promise<void> {
    const verdict = handler.onCancel(key, pressUser(interaction)).catch((err: unknown) => {
      this.log.error({ err: toThreadlabError(err), thread: key }, 'stop failed');
      return undefined;
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STOP_ACK_MS)));
    const first = await Promise.race([verdict, late]);
    clearTimeout(timer);
    const say = (content: string, how: 'reply' | 'followUp') =>
      interaction[how]({ content, flags: MessageFlags.Ephemeral }).then(
        () => undefined,
        (err: unknown) => this.log.warn({ err }, 'could not answer the Stop button'),
      );
    if (first !== 'late') {
      await say(first && !first.accepted ? first.message : '🛑 Stopping…', 'reply');
      return;
    }
    await say('🛑 Stopping…', 'reply');
    const outcome = await verdict;
    if (outcome && !outcome.accepted) await say(outcome.message, 'followUp');
  }

  /** The core's access verdict on a slash command, asked while the interaction is not acknowledged yet. */
  private async admitCommand(
    interaction: CommandInteraction | ModalSubmitInteraction,
    inbound: InboundMessage,
    handler: InboundHandler,
  ): Promise<boolean> {
    if (!handler.admit) return true;
    this.pendingCommands.set(inbound.id, interaction);
    try {
      const admission = await handler.admit(inbound, { slashCommand: true });
      // Said while the interaction is pending, so the notice is its ephemeral answer.
      if (!admission.allowed && admission.tell) await tellPrivately(this, inbound, admission.message, this.log);
      return admission.allowed;
    } finally {
      this.pendingCommands.delete(inbound.id);
    }
  }

  /** Apps → Run code (a message command): see run-message.ts. */
  private async onMessageCommand(
    interaction: MessageContextMenuCommandInteraction,
    handler: InboundHandler,
  ): Promise<void> {
    if (interaction.commandName !== RUN_CODE_COMMAND) {
      await interaction.reply({
        content: `Unknown command ${interaction.commandName}.`,
        flags: MessageFlags.Ephemeral,
      });
      return;
    }
    const context = {
      rest: this.rest,
      logger: this.log,
      handler,
      admit: (i: CommandInteraction, provisional: InboundMessage) => this.admitCommand(i, provisional, handler),
      follow: (threadId: string) => this.follower.follow(threadId),
    };
    await runMessageCommand(context, interaction, viewFromMessageCommand(interaction));
  }

  /**
   * Access first, before the deferral: a refused user gets an ephemeral answer (notifyPrivately) and the channel
   * sees nothing, where a public "thinking…" placeholder would show the refused command. Then defer (Discord drops
   * interactions not acknowledged within 3 s; if deferring failed, the reply target falls back) and hand it on.
   */
  private async admitAndAnswer(
    interaction: CommandInteraction | ModalSubmitInteraction,
    inbound: InboundMessage,
    handler: InboundHandler,
  ): Promise<void> {
    if (!(await this.admitCommand(interaction, inbound, handler))) return;
    await interaction
      .deferReply()
      .catch((err: unknown) => this.log.warn({ err }, 'could not defer a Discord interaction'));
    await answerInbound(this, inbound, await handler.onMessage(inbound), this.log);
  }

  /**
   * `/run` without code or `/ask` without a question: the modal (a multi-line text and a File Upload) is the
   * interaction's first response, shown only to someone the core admits.
   */
  private async openModal(
    interaction: CommandInteraction,
    view: ReturnType<typeof viewFromCommand>,
    kind: 'run' | 'ask',
    handler: InboundHandler,
  ): Promise<void> {
    const probe = toCommandMessage({ ...view, commandName: 'help', options: {} });
    if (probe && !(await this.admitCommand(interaction, probe, handler))) return;
    const language = view.options.language;
    const chosen = kind === 'run' ? LANGUAGES.find((l) => l === language) : undefined;
    await interaction.showModal(
      modalFor(kind === 'ask' ? { kind } : { kind, ...(chosen ? { language: chosen } : {}) }),
    );
  }

  /** A submitted modal runs or asks as its command would; a submission that cannot be read is told privately. */
  private async onModalSubmit(interaction: ModalSubmitInteraction, handler: InboundHandler): Promise<void> {
    const mapped = toModalMessage(viewFromModal(interaction));
    if (!mapped.ok) {
      await interaction.reply({ content: mapped.problem, flags: MessageFlags.Ephemeral });
      return;
    }
    await this.admitAndAnswer(interaction, mapped.message, handler);
  }

  private async onInteraction(interaction: Interaction, handler: InboundHandler): Promise<void> {
    try {
      if (interaction.isButton()) {
        const approval = parseApprovalButtonId(interaction.customId);
        if (approval) return await handleApprovalButton(interaction, approval, { handler, logger: this.log });
        const feedback = parseFeedbackButtonId(interaction.customId);
        if (feedback) return await handleFeedbackButton(interaction, feedback, { handler, logger: this.log });
        const key = parseStopButtonId(interaction.customId);
        if (!key) return;
        return await this.onStopButton(interaction, key, handler);
      }
      if (interaction.isModalSubmit()) {
        const answerRef = parseFeedbackModalId(interaction.customId);
        if (answerRef) return await handleFeedbackModal(interaction, answerRef, { handler, logger: this.log });
        return await this.onModalSubmit(interaction, handler);
      }
      if (!interaction.isChatInputCommand() && !interaction.isMessageContextMenuCommand()) return;
      // A thread not cached yet: its type and parent decide where the command's session lives. Never where the
      // bot is no member: the bot token has no business there.
      const view = viewFromCommand(interaction);
      if (!interaction.channel && interaction.guildId && interaction.channelId && botIsPresent(view)) {
        await interaction.client.channels.fetch(interaction.channelId).catch(() => null);
      }
      if (interaction.isMessageContextMenuCommand()) return await this.onMessageCommand(interaction, handler);
      const modal = modalWanted(view);
      if (modal) return await this.openModal(interaction, view, modal, handler);
      const inbound = toCommandMessage(viewFromCommand(interaction));
      if (!inbound) {
        await interaction.reply({
          content: `Unknown command /${interaction.commandName}.`,
          flags: MessageFlags.Ephemeral,
        });
        return;
      }
      await this.admitAndAnswer(interaction, inbound, handler);
    } catch (err) {
      this.log.error(
        { err: toThreadlabError(err), interaction: interaction.id },
        'could not handle a Discord interaction',
      );
    }
  }
}

/** How long a Stop press waits for the core's verdict before it is acknowledged anyway, in ms (Discord allows 3 s). */
const STOP_ACK_MS = 2000;

/** Who pressed a button, as the access allowlists and the Stop check read them. */
function pressUser(interaction: ButtonInteraction): InboundUser {
  const roles = memberRoleIds(interaction.member, interaction.guildId);
  return {
    id: interaction.user.id,
    name: interaction.user.globalName ?? interaction.user.username,
    ...(roles ? { roles } : {}),
  };
}
