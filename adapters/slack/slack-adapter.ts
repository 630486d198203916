import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { InboundAttachment, InboundMessage } from '../../src/domain/messages.js';
import type { Reply } from '../../src/domain/reply.js';
import { threadKey } from '../../src/domain/thread-key.js';
import { DEFAULT_MAX_IMAGE_DIMENSION_PX, type ArtifactRenderer } from '../../src/ports/artifact-renderer.js';
import type {
  AttachmentDownload,
  InboundHandler,
  PlatformAdapter,
  PostedReply,
  ProgressSink,
} from '../../src/ports/platform-adapter.js';
import type { GovernanceSurface } from '../../src/ports/governance.js';
import { downloadSlackFile } from './download.js';
import { toSlackError } from './errors.js';
import { KnownThreads } from './known-threads.js';
import { ThreadMembership } from './thread-membership.js';
import { registerListeners } from './listeners.js';
import { SlackProgressSink } from './progress-sink.js';
import { postApproval, registerApprovalActions } from './approval.js';
import { registerFeedbackActions } from './feedback.js';
import type { ApprovalPrompt, ApprovalView } from '../../src/ports/approval.js';
import { registerAssistantListeners } from './assistant-listeners.js';
import { slackErrorCode, SurfaceSupport } from './surface-support.js';
import { postReply } from './post-reply.js';
import { SlackUserGroups } from './user-groups.js';
import { DEFAULT_SLACK_COMMAND, isSlackUserGroupId, slackProfile } from './profile.js';
import type { PlatformProfile } from '../../src/ports/platform-profile.js';
import { createBoltApp, startBoltApp, type BoltAppOptions } from './bolt-app.js';
import { createBotClients, type BotClientsOptions, type WebClientOptions } from './bot-clients.js';
import { registerAgentListeners } from './agent-listeners.js';
import { ViewedChannels } from './app-context.js';
import { AssistantViewNotice } from './migration-notice.js';
import { withViewing } from './viewing-line.js';

/** The bot's token, Web API and bolt settings (bot-clients.ts, bolt-app.ts), and the adapter's own. */
export interface SlackAdapterOptions extends BotClientsOptions, BoltAppOptions {
  /** The slash command's name. @defaultValue '/interpreter' */
  command?: string;
  /** Thread replies continue a session without a mention once the bot is in the thread. @defaultValue true */
  followThreads?: boolean;
  /** Largest upload, in bytes; bigger files are zipped or listed as omitted. @defaultValue 1 GiB */
  maxUploadBytes?: number;
  /** Least time between two status updates, in ms. @defaultValue 1000 */
  progressIntervalMs?: number;
  /** When given, more than 10 images in one reply are combined into a contact sheet. */
  renderer?: ArtifactRenderer;
  /** Longest side of such a contact sheet. @defaultValue DEFAULT_MAX_IMAGE_DIMENSION_PX (2048) */
  maxImageDimensionPx?: number;
  /** Origins the bot token may be sent to when downloading. @defaultValue files.slack.com and the API URL's origin */
  fileOrigins?: string[];
  /**
   * THREADLAB_DATA_DIR: where the bot notes, for `threadlab doctor`, that its app is still on `assistant_view`.
   * @defaultValue nowhere (the log line only)
   */
  dataDir?: string;
}

/** Slack through bolt: events in (Socket Mode or HTTP), Block Kit, files and a live status out. */
export class SlackAdapter implements PlatformAdapter, GovernanceSurface {
  readonly platform = 'slack' as const;
  readonly profile: PlatformProfile;
  readonly maxUploadBytes: number;
  /** The Web API client for answering; usable without `start`, so a worker can answer too. */
  readonly client: WebClient;
  /** Writes live statuses: a 429 is handed back to the sink, which retries only while its job runs. */
  private readonly statusClient: WebClient;
  /** Open status sinks by message id, so the answer can stop its status before it is posted. */
  private readonly sinks = new Map<string, SlackProgressSink>();
  private readonly known = new KnownThreads();
  private readonly fileOrigins: string[];
  private app: App | undefined;
  private port: number | undefined;
  /** Where Slack refused the assistant surfaces: per workspace or per thread, remembered. */
  private readonly support: SurfaceSupport;
  /** Where Slack refused the Agent Sessions API (an app on `assistant_view`, a workspace without it). */
  private readonly sessionSupport: SurfaceSupport;
  /** Options of a further client of this bot token (bolt's App's), sharing the clients' 429 holds. */
  private readonly clientOptions: () => WebClientOptions;
  /** What each user looks at in Slack (`app_context_changed`). */
  private readonly viewed = new ViewedChannels();
  /** User group membership for the access allowlists, cached per group. */
  private readonly userGroups: SlackUserGroups;

  constructor(private readonly options: SlackAdapterOptions) {
    this.support = new SurfaceSupport({ logger: options.logger });
    this.sessionSupport = new SurfaceSupport({
      logger: options.logger,
      words: { surface: 'agent sessions (agents.sessions.setStatus)', instead: 'the assistant status' },
    });
    this.profile = slackProfile(options.command);
    this.maxUploadBytes = options.maxUploadBytes ?? 1024 ** 3;
    ({
      client: this.client,
      statusClient: this.statusClient,
      clientOptions: this.clientOptions,
    } = createBotClients(options));
    const apiOrigin = options.apiUrl ? [new URL(options.apiUrl).origin] : [];
    this.fileOrigins = options.fileOrigins ?? ['https://files.slack.com', ...apiOrigin];
    this.userGroups = new SlackUserGroups({ client: this.client });
  }

  /** HTTP mode: the port actually listened on, once started. */
  get httpPort(): number | undefined {
    return this.port;
  }

  async start(handler: InboundHandler): Promise<void> {
    const { options } = this;
    const { app, botUserId, botId } = await createBoltApp(this.client, options, this.clientOptions());
    registerApprovalActions({ app, client: this.client, handler, logger: options.logger });
    registerFeedbackActions({ app, client: this.client, handler, logger: options.logger });
    const notice = new AssistantViewNotice({
      logger: options.logger,
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    });
    registerListeners({
      app,
      client: this.client,
      handler,
      target: this,
      logger: options.logger,
      botUserId: botUserId ?? '',
      command: options.command ?? DEFAULT_SLACK_COMMAND,
      followThreads: options.followThreads ?? true,
      known: this.known,
      enrich: (message) =>
        withViewing({ client: this.client, handler, viewed: this.viewed, logger: options.logger }, message),
      membership: new ThreadMembership({
        client: this.client,
        botUserId: botUserId ?? '',
        ...(botId ? { botId } : {}),
        known: this.known,
        logger: options.logger,
      }),
    });
    registerAssistantListeners({
      app,
      client: this.client,
      handler,
      target: this,
      logger: options.logger,
      support: this.support,
      onAssistantView: (workspace) => notice.seen(workspace),
    });
    registerAgentListeners({
      app,
      client: this.client,
      logger: options.logger,
      viewed: this.viewed,
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    });
    this.port = await startBoltApp(app, options);
    this.app = app;
    options.logger.info(
      { mode: options.mode ?? 'socket', host: options.host, port: this.port, bot: botUserId },
      'slack adapter started',
    );
  }

  async stop(): Promise<void> {
    const app = this.app;
    this.app = undefined;
    await app?.stop();
  }

  download(
    attachment: InboundAttachment,
    options: { maxBytes: number; signal?: AbortSignal },
  ): Promise<AttachmentDownload> {
    return downloadSlackFile(attachment, {
      client: this.client,
      botToken: this.options.botToken,
      allowedOrigins: this.fileOrigins,
      maxBytes: options.maxBytes,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  progress(message: InboundMessage): ProgressSink {
    if (message.replyContext?.ephemeral) return { update: () => undefined, close: async () => undefined };
    const key = threadKey(message.thread);
    this.known.add(key);
    // In a DM the agent surfaces apply: on agent_view each top-level message is a thread root of its own, on
    // assistant_view the pane's threads are. A refusal (a plain DM of an assistant_view app) falls back per thread.
    const ctx = message.replyContext;
    const workspace = message.thread.workspace;
    const assistant = ctx?.channelType === 'im' && this.support.usable(workspace, key);
    const sink = new SlackProgressSink({
      client: this.client,
      statusClient: this.statusClient,
      onClose: () => this.sinks.delete(message.id),
      channel: message.thread.channel,
      threadTs: message.thread.thread,
      threadKey: key,
      logger: this.options.logger,
      assistant,
      sessions: this.sessionSupport.usable(workspace, key),
      onSessionsUnsupported: (err) =>
        this.sessionSupport.refused({
          workspace,
          threadKey: key,
          method: 'agents.sessions.setStatus',
          error: slackErrorCode(err),
        }),
      recipient: { userId: message.user.id, teamId: workspace },
      onAssistantUnsupported: (err, method) =>
        this.support.refused({ workspace, threadKey: key, method, error: slackErrorCode(err) }),
      ...(this.options.progressIntervalMs !== undefined ? { minIntervalMs: this.options.progressIntervalMs } : {}),
    });
    this.sinks.set(message.id, sink);
    return sink;
  }

  async reply(message: InboundMessage, reply: Reply): Promise<PostedReply> {
    return this.place(message, reply);
  }

  /** Code the model wants to run, with Run and Skip buttons, in the message's thread. */
  askApproval(message: InboundMessage, view: ApprovalView): Promise<ApprovalPrompt> {
    return postApproval({ client: this.client, logger: this.options.logger }, message, view);
  }

  /** Replaces an earlier answer: its text messages are updated (`chat.update`); files are posted anew. */
  async updateReply(message: InboundMessage, previous: PostedReply, reply: Reply): Promise<PostedReply> {
    return this.place(message, reply, previous.messageIds);
  }

  /** A message only the user sees, in the thread (`chat.postEphemeral`); false when Slack refused it. */
  async notifyPrivately(message: InboundMessage, text: string): Promise<boolean> {
    try {
      await this.client.chat.postEphemeral({
        channel: message.thread.channel,
        user: message.user.id,
        text,
        ...(message.thread.thread ? { thread_ts: message.thread.thread } : {}),
      });
      return true;
    } catch (err) {
      this.options.logger.warn({ err: toSlackError(err, 'chat.postEphemeral') }, 'could not post an ephemeral notice');
      return false;
    }
  }

  /** The user groups among `groupIds` the user belongs to (`usergroups.users.list`, needs usergroups:read). */
  groupsOf(message: InboundMessage, groupIds: string[]): Promise<string[]> {
    // The allowlists' other ids (users, channels) are no groups: only S… ids cost an API call.
    return this.userGroups.of(message.user.id, groupIds.filter(isSlackUserGroupId));
  }

  private async place(message: InboundMessage, reply: Reply, previous?: string[]): Promise<PostedReply> {
    // No status write may land after (or be retried behind) the answer.
    await this.sinks.get(message.id)?.finish();
    this.known.add(threadKey(message.thread));
    return postReply(
      {
        client: this.client,
        logger: this.options.logger,
        maxUploadBytes: this.maxUploadBytes,
        maxImageDimensionPx: this.options.maxImageDimensionPx ?? DEFAULT_MAX_IMAGE_DIMENSION_PX,
        ...(this.options.renderer ? { renderer: this.options.renderer } : {}),
      },
      message,
      reply,
      previous,
    );
  }
}
