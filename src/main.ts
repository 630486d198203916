/**
 * The composition root: the one place that knows every implementation. Everything else depends on
 * the ports in src/ports.
 */
import { mkdirSync } from 'node:fs';
import type { Config } from './config/index.js';
import { ThreadlabError } from './domain/errors.js';
import { parseEndpointUrl } from './domain/endpoint-url.js';
import type { Logger } from './logger.js';
import type { ArtifactRenderer } from './ports/artifact-renderer.js';
import type { ThreadlabMetrics } from './ops/metrics.js';
import type { JobQueue } from './ports/job-queue.js';
import type { LlmClient } from './ports/llm-client.js';
import type { PlatformAdapter } from './ports/platform-adapter.js';
import type { Sandbox } from './ports/sandbox.js';
import type { ConversationStore } from './ports/conversation-store.js';
import type { Scheduler } from './ports/scheduler.js';
import { Bot, type BotDeps } from './core/bot.js';
import { InProcessJobQueue } from './queue/in-process-queue.js';
import { queueLimits } from './queue/limits.js';
import type { OnDropped } from './queue/queue-events.js';
import { MemoryConversationStore } from './conversations/memory-conversation-store.js';
import { OpenAiLlmClient, recordingFetch, TurnRecorder } from '../adapters/openai/index.js';
import { currentAuditScope } from './governance/audit/audit-scope.js';
import { SharpArtifactRenderer } from '../adapters/render/sharp-renderer.js';
import { SlackAdapter, type SlackAdapterOptions } from '../adapters/slack/index.js';
import { DiscordAdapter } from '../adapters/discord/index.js';
import { WebChatAdapter } from '../adapters/web/index.js';
import { stateBacking } from '../adapters/redis/state-backing.js';
import { createDockerSandbox } from '../sandbox/index.js';
import { createDocker } from '../sandbox/docker-client.js';
import { EgressGateway } from './egress/gateway.js';
import { sandboxImageTag } from '../sandbox/image-builder.js';
import { budgetsEnabled, DailyBudgets } from './governance/budget/budget.js';
import { auditLogFor } from './governance/audit/audit-sink.js';
import { FeedbackDesk } from './feedback/feedback-desk.js';
import type { AuditLog } from './governance/audit/audit-log.js';
import { ThreadlabGovernance } from './governance/governance.js';
import type { Governance, GovernanceSurface } from './ports/governance.js';
import { auditedSandbox } from './governance/audit/audited-sandbox.js';
import { auditedLlm } from './governance/audit/audited-llm.js';
import { auditedEgress } from './governance/audit/audited-egress.js';
import { egressAuditLine } from './governance/audit/audit-egress.js';
import { createParticipantIndex } from './governance/retention/retention-index.js';
import type { ApprovalBoard } from './ports/approval-board.js';
import { webHistoryRetention, webSurfaceHistories } from '../adapters/web/web-retention.js';
import { ContainerRetention, liveThreadHashes } from '../sandbox/container-retention.js';
import { savedStateRetention, threadFilesDir, threadFilesRetention } from '../sandbox/mirror-retention.js';
import { poolDemandFile } from '../sandbox/pool-demand-file.js';
import type { RetentionSource, ParticipantLookup } from './governance/retention/retention.js';
import { MemoryRetention } from './governance/retention/retention-memory.js';
import { ScheduleRetention } from './governance/retention/retention-schedules.js';
import { PurgeHonouringStore, PurgeMarks } from './governance/retention/retention-marks.js';
import { retentionSweeperFor, type RetentionSweeper } from './governance/retention/retention-sweeper.js';

export type Role = 'all' | 'gateway' | 'worker';

export interface BuildOptions {
  role?: Role;
  /** Prometheus metrics the queue, sandbox pool, LLM and errors report into. */
  metrics?: ThreadlabMetrics;
  /** Replace any dependency (tests, the CLI's one-shot commands), governance's stores included. */
  overrides?: Partial<BotDeps> & GovernanceStores;
}

/** The stores governance is built on, which tests may replace (unset in `overrides`: from configuration). */
export interface GovernanceStores {
  /** The daily budgets (`undefined` given: none). */
  budgets?: DailyBudgets;
  /** Where approval requests wait (`undefined` given: in this process). */
  approvalBoard?: ApprovalBoard;
}

/** A sandbox for the gateway role, which never runs code: any use is a wiring bug, said plainly. */
function noSandbox(): Sandbox {
  const fail = (): never => {
    throw new ThreadlabError(
      'internal',
      'This process runs the gateway role, which has no sandbox; jobs run on workers.',
    );
  };
  return {
    run: fail,
    putFile: fail,
    listFiles: fail,
    readFile: fail,
    previewFiles: fail,
    prepare: fail,
    reset: fail,
    isLive: () => false,
    environment: fail,
    close: async () => {},
  };
}

/**
 * Creates and starts the Docker sandbox: checks the image, removes orphans, fills the warm pool. With
 * `rememberDemand` its pool saves what it learns about demand in the data directory and starts from it: the
 * bot's own processes (`threadlab start`) do; the CLI's daemon and eval do not, since their demand (one
 * person's commands) would replace the bot's record in a data directory they share.
 */
export async function createSandbox(
  config: Config,
  logger: Logger,
  options: { instanceId?: string; metrics?: ThreadlabMetrics; rememberDemand?: boolean } = {},
): Promise<Sandbox> {
  const { instanceId, metrics } = options;
  const egress = config.egress
    ? new EgressGateway({
        ...config.egress,
        logger: logger.child({ component: 'egress' }),
        ...(metrics ? { metrics: metrics.egress } : {}),
        onAudit: (record) => auditLogFor(config.audit, logger).write(egressAuditLine(record)),
      })
    : undefined;
  const sandbox = await createDockerSandbox({
    docker: createDocker(config.sandbox.dockerHost),
    image: config.sandbox.image ?? sandboxImageTag(),
    limits: config.sandbox,
    dataDir: threadFilesDir(config.dataDir),
    ...(options.rememberDemand ? { demandFile: poolDemandFile(config.dataDir) } : {}),
    runtime: config.sandbox.runtime,
    platform: config.sandbox.platform,
    logger: logger.child({ component: 'sandbox' }),
    ...(instanceId ? { instanceId } : {}),
    ...(metrics ? { observer: metrics.pool } : {}),
    ...(egress ? { egress: auditedEgress(egress) } : {}),
  });
  if (metrics) setInterval(() => metrics.pool.sessions(sandbox.liveSessions()), 5000).unref();
  return sandbox;
}

/** The model client, or undefined when no model is configured: the interpreter then runs direct mode only. */
export function createLlmClient(config: Config, logger: Logger): LlmClient | undefined {
  const { llm } = config;
  if (!llm.configured) return undefined;
  return new OpenAiLlmClient({
    ...(llm.apiKey ? { apiKey: llm.apiKey } : {}),
    ...(llm.baseUrl ? { baseUrl: llm.baseUrl } : {}),
    model: llm.model,
    requestTimeoutMs: llm.requestTimeoutMs,
    maxRetries: llm.maxRetries,
    stream: llm.stream,
    images: llm.images,
    ...(llm.dialect ? { dialect: llm.dialect } : {}),
    ...(config.llmRecord.recordDir ? { fetch: recordedFetch(config, logger) } : {}),
    logger,
  });
}

/** THREADLAB_LLM_RECORD: `fetch` that writes each turn's (each job's) model exchanges to a file of its own. */
function recordedFetch(config: Config, logger: Logger): typeof fetch {
  const { llm, llmRecord: record } = config;
  const sink = new TurnRecorder({
    dir: record.recordDir!,
    maxBytes: record.recordMaxBytes,
    keepFiles: record.recordFiles,
    secrets: config.secrets,
    endpoint: parseEndpointUrl(llm.baseUrl ?? 'https://api.openai.com/v1').display,
    settings: {
      model: llm.model,
      stream: llm.stream,
      tools: llm.tools,
      images: llm.images,
      ...(llm.temperature !== undefined ? { temperature: llm.temperature } : {}),
      maxRounds: llm.maxRounds,
      tokenBudget: llm.tokenBudget,
      maxRetries: llm.maxRetries,
      ...(llm.dialect ? { dialect: llm.dialect } : {}),
      verifyFigures: llm.verifyFigures,
      memoryTokens: llm.memoryTokens,
    },
    turnOf: () => {
      const scope = currentAuditScope();
      return scope && { thread: scope.thread, job: scope.job };
    },
    logger: logger.child({ component: 'llm-record' }),
  });
  return recordingFetch(globalThis.fetch, { sink, keepFiles: record.recordFiles, maxBodyChars: record.recordMaxBytes });
}

/** The Slack adapter from the configuration's slack section; `overrides` for tests (a renderer, a port). */
export function createSlackAdapter(
  config: Config,
  logger: Logger,
  overrides: Partial<SlackAdapterOptions> = {},
): SlackAdapter {
  const { slack } = config;
  if (!slack.botToken)
    throw new ThreadlabError('config_invalid', 'SLACK_BOT_TOKEN is required for Slack (xoxb-…).', { isPolicy: true });
  return new SlackAdapter({
    botToken: slack.botToken,
    mode: slack.mode,
    appToken: slack.appToken,
    signingSecret: slack.signingSecret,
    port: slack.port,
    ...(slack.host ? { host: slack.host } : {}),
    apiUrl: slack.apiUrl,
    command: slack.command,
    followThreads: slack.followThreads,
    maxImageDimensionPx: config.replies.maxImageDimensionPx,
    dataDir: config.dataDir,
    logger: logger.child({ platform: 'slack' }),
    ...overrides,
  });
}

/** The Discord adapter from the configuration's discord section. */
export function createDiscordAdapter(
  config: Config,
  deps: { logger: Logger; renderer?: ArtifactRenderer },
): DiscordAdapter {
  const { discord } = config;
  if (!discord.token || !discord.applicationId)
    throw new ThreadlabError('config_invalid', 'Discord needs DISCORD_TOKEN and DISCORD_APPLICATION_ID.', {
      isPolicy: true,
    });
  return new DiscordAdapter({
    token: discord.token,
    applicationId: discord.applicationId,
    ...(discord.apiUrl ? { apiUrl: discord.apiUrl } : {}),
    maxUploadBytes: discord.maxUploadBytes,
    maxImageDimensionPx: config.replies.maxImageDimensionPx,
    logger: deps.logger,
    ...(deps.renderer ? { renderer: deps.renderer } : {}),
  });
}

export function createAdapters(config: Config, logger: Logger, renderer: ArtifactRenderer): PlatformAdapter[] {
  const adapters: PlatformAdapter[] = [];
  if (config.slack.enabled) adapters.push(createSlackAdapter(config, logger, { renderer }));
  if (config.discord.enabled)
    adapters.push(createDiscordAdapter(config, { logger: logger.child({ platform: 'discord' }), renderer }));
  if (config.web.enabled) {
    adapters.push(
      new WebChatAdapter({
        host: config.web.host,
        port: config.web.port,
        dataDir: config.dataDir,
        maxUploadBytes: config.sandbox.maxFileBytes,
        events: { maxStreams: config.web.maxStreams },
        server: { maxConnections: config.web.maxConnections },
        logger,
        ...(config.web.token ? { token: config.web.token } : {}),
      }),
    );
  }
  return adapters;
}

/** The renderer of charts and images into platform-sized files (sharp). */
export function createRenderer(config: Pick<Config, 'replies'>, logger?: Logger): ArtifactRenderer {
  return new SharpArtifactRenderer({ keepPngBytes: config.replies.keepPngKb * 1024, ...(logger ? { logger } : {}) });
}

/** The in-process queue by default; BullMQ on Redis when REDIS_URL is set. */
function createQueue(
  config: Config,
  logger: Logger,
  hooks: { metrics?: ThreadlabMetrics; onDropped: OnDropped },
): JobQueue {
  return stateBacking(config.redis.url).queue({
    logger: logger.child({ component: 'queue' }),
    concurrency: config.queue.concurrency,
    maxParked: config.queue.maxParked,
    limits: queueLimits(config.queue),
    onDropped: hooks.onDropped,
    ...(hooks.metrics ? { observer: hooks.metrics.queue } : {}),
    // A thread stays with the worker holding its container for as long as that container may live.
    affinityTtlMs: Math.max(config.sandbox.idleTtlMs, config.sandbox.unsavedIdleTtlMs),
  });
}

/**
 * Conversation memory in this process by default (honouring `threadlab purge`'s marks, since the purge cannot
 * reach this process's memory otherwise); in Redis when REDIS_URL is set.
 */
function createStore(config: Config, logger: Logger): ConversationStore {
  const backing = stateBacking(config.redis.url);
  const store = backing.conversationStore(logger.child({ component: 'conversations' }));
  return backing.shared ? store : honourPurges(store, config);
}

/** This process's memory store (the daemon's too), honouring `threadlab purge`'s marks. */
function processMemoryStore(config: Config): ConversationStore {
  return honourPurges(new MemoryConversationStore(), config);
}

function honourPurges(store: ConversationStore, config: Config): ConversationStore {
  return new PurgeHonouringStore(store, new PurgeMarks(config.dataDir));
}

/** The daily budgets when any is set: counted in Redis when REDIS_URL is set (shared by workers), else in memory. */
export function createBudgets(config: Config, logger: Logger): DailyBudgets | undefined {
  if (!budgetsEnabled(config.budgets)) return undefined;
  const log = logger.child({ component: 'budgets' });
  const counters = stateBacking(config.redis.url).budgetCounters(log);
  return new DailyBudgets({ counters, limits: config.budgets, logger: log });
}

/**
 * Governance, built here only: access allowlists and approval from configuration, the budgets' counters and
 * the approval board in Redis when REDIS_URL is set, the audit trail, and the index of who wrote where.
 */
function createGovernance(
  config: Config,
  logger: Logger,
  options: { audit: AuditLog; overrides: GovernanceStores; surfaces: readonly GovernanceSurface[] },
): Governance {
  const o = options.overrides;
  const budgets = 'budgets' in o ? o.budgets : createBudgets(config, logger);
  const board = 'approvalBoard' in o ? () => o.approvalBoard : () => createApprovalBoard(config, logger);
  return new ThreadlabGovernance({
    config,
    logger,
    audit: options.audit,
    ...(budgets ? { budgets } : {}),
    approvalBoard: board,
    surfaces: options.surfaces,
    participants: createParticipantIndex(config.dataDir, (thread) =>
      logger.warn({ thread }, 'a thread has too many writers to record them all; purge --user may miss it'),
    ),
  });
}

/** Where schedules live and fire: BullMQ job schedulers with REDIS_URL, else timers in this process. */
export function createScheduler(config: Config, logger: Logger): Scheduler {
  return stateBacking(config.redis.url).scheduler(logger.child({ component: 'scheduler' }));
}

/** Where approval requests wait (asked for by governance only with THREADLAB_APPROVAL=ask): see StateBacking.approvalBoard (adapters/redis/state-backing.ts). */
export function createApprovalBoard(config: Config, logger: Logger): ApprovalBoard | undefined {
  return stateBacking(config.redis.url).approvalBoard(logger.child({ component: 'approval' }));
}

/**
 * Why `role` cannot run with this configuration, or undefined. The web chat keeps its threads on this
 * machine's disk and streams each reply from the process that holds the browser's connection, so a
 * worker's replies could never reach it: it runs only in the single-process role.
 */
export function roleProblem(config: Config, role: Role): string | undefined {
  if (role === 'all' || !config.web.enabled) return undefined;
  const why =
    config.web.enabledSetting === 'auto'
      ? 'THREADLAB_WEB_ENABLED=auto turned it on because neither Slack nor Discord is configured'
      : 'THREADLAB_WEB_ENABLED=true';
  return (
    `The local web chat runs only with --role all (${why}): it keeps threads on this machine's disk and ` +
    `answers from the same process. Run it as one process (threadlab start), or set THREADLAB_WEB_ENABLED=false ` +
    `for --role ${role} and configure Slack or Discord.`
  );
}

/** Builds the bot (the core) for a role from configuration; `overrides` replace any dependency. */
export async function buildBot(config: Config, logger: Logger, options: BuildOptions = {}): Promise<Bot> {
  const role = options.role ?? 'all';
  const problem = roleProblem(config, role);
  if (problem) throw new ThreadlabError('config_invalid', problem, { isPolicy: true });
  const o = options.overrides ?? {};
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 }); // thread files are users' data
  // The queue tells the bot about jobs that will not run, so their users hear of it.
  const late: { bot?: Bot } = {};
  const onDropped: OnDropped = (job, reason) => late.bot?.onDropped(job, reason);
  const renderer = o.renderer ?? createRenderer(config, logger);
  const llm = 'llm' in o ? o.llm : createLlmClient(config, logger.child({ component: 'llm' }));
  const sandbox =
    o.sandbox ??
    (role === 'gateway'
      ? noSandbox()
      : await createSandbox(config, logger, {
          rememberDemand: true,
          ...(options.metrics ? { metrics: options.metrics } : {}),
        }));
  try {
    // Every run, model call and approval decision leaves one audit line (THREADLAB_AUDIT_LOG).
    const audit = auditLogFor(config.audit, logger);
    const adapters = o.adapters ?? createAdapters(config, logger, renderer);
    const store = o.store ?? createStore(config, logger);
    const bot = new Bot({
      config,
      logger,
      sandbox: auditedSandbox(sandbox, audit),
      ...(llm ? { llm: auditedLlm(llm, audit) } : {}),
      store,
      queue:
        o.queue ?? createQueue(config, logger, { onDropped, ...(options.metrics ? { metrics: options.metrics } : {}) }),
      renderer,
      adapters,
      ...(options.metrics ? { metrics: options.metrics } : {}),
      // Schedules fire on workers; without Redis they live in this process's timers (lost on restart).
      scheduler: o.scheduler ?? createScheduler(config, logger),
      // The adapters are also governance's surfaces: their approval buttons and user groups.
      governance: o.governance ?? createGovernance(config, logger, { audit, overrides: o, surfaces: adapters }),
      // 👍/👎 on answers: looked up in the answer ledger (the same store), one audit line and a count each.
      feedback: new FeedbackDesk({
        store,
        audit,
        logger: logger.child({ component: 'feedback' }),
        ...(options.metrics ? { metrics: options.metrics } : {}),
      }),
    });
    late.bot = bot;
    return bot;
  } catch (err) {
    // The sandbox already started warm containers: a failed start-up must not leave them behind.
    if (!o.sandbox)
      await sandbox.close().catch((closeErr: unknown) => logger.warn({ err: closeErr }, 'sandbox close failed'));
    throw err;
  }
}

/**
 * The bot of `threadlab daemon`: one process (in-process queue and memory), the CLI's adapter, and a sandbox
 * whose containers are named for this process. `threadlab exec` runs on the returned sandbox, past the bot:
 * it is the audited one, so each of its runs leaves its audit line like the bot's.
 */
export async function buildDaemonBot(
  config: Config,
  logger: Logger,
  adapter: PlatformAdapter,
): Promise<{ bot: Bot; sandbox: Sandbox }> {
  const sandbox = await createSandbox(config, logger, { instanceId: `cli-${process.pid}` });
  const bot = await buildBot(config, logger, {
    overrides: {
      sandbox,
      adapters: [adapter],
      queue: new InProcessJobQueue({
        logger,
        concurrency: config.queue.concurrency,
        maxParked: config.queue.maxParked,
        // The configured per-user and per-workspace limits, as `threadlab start` has them (not the defaults).
        limits: queueLimits(config.queue),
      }),
      store: processMemoryStore(config),
    },
  });
  return { bot, sandbox: auditedSandbox(sandbox, auditLogFor(config.audit, logger)) };
}

/** What `threadlab purge` deletes from, and what it asks (see {@link createPurgeSources}). */
export interface PurgeSources {
  /** In the order a thread's data must go. */
  sources: RetentionSource[];
  /** Who wrote in which thread, for `--user`. */
  participants: ParticipantLookup;
  /** Hashes of the threads with a live sandbox container on this engine (an idle purge leaves them). */
  liveHashes: () => Promise<Set<string>>;
  /** False without REDIS_URL: conversation memory then lives in the bot process, out of this one's reach. */
  memoryReachable: boolean;
  close(): Promise<void>;
}

/**
 * Every place that holds a thread's data, for `threadlab purge`: its schedules (in Redis), a live container (or
 * the bot would write its files back), the host copies of its files and saved state, conversation memory (in
 * Redis), the web chat's history, and last the who-wrote index, which the others' idle purge asks which threads
 * are idle.
 */
export function createPurgeSources(config: Config, logger: Logger): PurgeSources {
  const index = createParticipantIndex(config.dataDir);
  const docker = createDocker(config.sandbox.dockerHost);
  const store = stateBacking(config.redis.url).shared ? createStore(config, logger) : undefined;
  // Schedules first, so none fires into a thread while its data goes (in Redis only: else in the bot's process).
  const scheduler = store ? createScheduler(config, logger) : undefined;
  const sources: RetentionSource[] = [
    ...(scheduler ? [new ScheduleRetention({ scheduler, idleKeys: (c) => index.idleKeys(c) })] : []),
    new ContainerRetention({ docker }),
    threadFilesRetention(config.dataDir, (name) => index.keyOf(name)),
    ...(store ? [new MemoryRetention({ store, idleKeys: (c) => index.idleKeys(c), where: 'Redis' })] : []),
    webHistoryRetention(config.dataDir),
    index,
  ];
  return {
    sources,
    participants: index,
    liveHashes: () => liveThreadHashes(docker),
    memoryReachable: store !== undefined,
    close: async () => {
      await scheduler?.close();
      await store?.close();
    },
  };
}

/** `threadlab start`'s timed retention for a role (THREADLAB_RETENTION_*), or undefined with nothing to sweep. */
export function createRetentionSweeper(options: {
  config: Config;
  logger: Logger;
  role: Role;
}): RetentionSweeper | undefined {
  const { config } = options;
  let docker: ReturnType<typeof createDocker> | undefined;
  return retentionSweeperFor({
    ...options,
    sources: {
      state: () => savedStateRetention(config.dataDir),
      histories: webSurfaceHistories(config),
      liveHashes: () => liveThreadHashes((docker ??= createDocker(config.sandbox.dockerHost))),
    },
  });
}
