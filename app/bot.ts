/**
 * The composition root: the one place that knows every implementation and builds the bot for a role. Everything
 * in src/ depends on the ports in src/ports only.
 */
import { mkdirSync } from 'node:fs';
import type { Config } from '../src/config/index.js';
import { ThreadlabError } from '../src/domain/errors.js';
import type { Logger } from '../src/logger.js';
import type { ThreadlabMetrics } from '../src/ops/metrics.js';
import type { JobQueue } from '../src/ports/job-queue.js';
import type { PlatformAdapter } from '../src/ports/platform-adapter.js';
import type { Sandbox } from '../src/ports/sandbox.js';
import { Bot, type BotDeps } from '../src/core/bot.js';
import { InProcessJobQueue } from '../src/queue/in-process-queue.js';
import { queueLimits } from '../src/queue/limits.js';
import type { OnDropped } from '../src/queue/queue-events.js';
import { auditLogFor } from '../src/governance/audit/audit-sink.js';
import { auditedSandbox } from '../src/governance/audit/audited-sandbox.js';
import { auditedLlm } from '../src/governance/audit/audited-llm.js';
import { FeedbackDesk } from '../src/feedback/feedback-desk.js';
import { auditedSources } from '../src/governance/audit/audited-sources.js';
import { createAdapters, createRenderer } from './adapters.js';
import { createGovernance, type GovernanceStores } from './governance.js';
import { createLlmClient } from './llm.js';
import { ModelMemory } from '../src/domain/model-memory.js';
import { roleProblem, type Role } from './roles.js';
import { createSandbox, noSandbox } from './sandbox.js';
import { createSources } from './sources.js';
import { conversationStore, processMemoryStore, sharedState, type StateBacking } from './state.js';

export interface BuildOptions {
  role?: Role;
  /** Prometheus metrics the queue, sandbox pool, LLM and errors report into. */
  metrics?: ThreadlabMetrics;
  /** Replace any dependency (tests, the CLI's one-shot commands), governance's stores included. */
  overrides?: Partial<BotDeps> & GovernanceStores;
}

/** The queue in the shared state: in this process by default, BullMQ on Redis when REDIS_URL is set. */
function createQueue(
  config: Config,
  logger: Logger,
  state: StateBacking,
  hooks: { metrics?: ThreadlabMetrics; onDropped: OnDropped },
): JobQueue {
  return state.queue({
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

/** Builds the bot (the core) for a role from configuration; `overrides` replace any dependency. */
export async function buildBot(config: Config, logger: Logger, options: BuildOptions = {}): Promise<Bot> {
  const role = options.role ?? 'all';
  const problem = roleProblem(config, role);
  if (problem) throw new ThreadlabError('config_invalid', problem, { isPolicy: true });
  const o = options.overrides ?? {};
  const metrics = options.metrics ? { metrics: options.metrics } : {};
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 }); // thread files are users' data
  const state = await sharedState(config);
  // The queue tells the bot about jobs that will not run, so their users hear of it.
  const late: { bot?: Bot } = {};
  const onDropped: OnDropped = (job, reason) => late.bot?.onDropped(job, reason);
  const renderer = o.renderer ?? createRenderer(config, logger);
  // Everything learned about the model server (its dialect, context window and tool protocol) is kept in one place.
  const models = new ModelMemory();
  const llm = 'llm' in o ? o.llm : createLlmClient(config, logger.child({ component: 'llm' }), models);
  const sandbox =
    o.sandbox ??
    (role === 'gateway' ? noSandbox() : await createSandbox(config, logger, { rememberDemand: true, ...metrics }));
  try {
    // Every run, model call and approval decision leaves one audit line (THREADLAB_AUDIT_LOG).
    const audit = auditLogFor(config.audit, logger);
    const adapters = o.adapters ?? (await createAdapters(config, logger, renderer));
    const store = o.store ?? conversationStore(state, config, logger);
    const bot = new Bot({
      models,
      config,
      logger,
      sandbox: auditedSandbox(sandbox, audit),
      ...(llm ? { llm: auditedLlm(llm, audit) } : {}),
      store,
      queue: o.queue ?? createQueue(config, logger, state, { onDropped, ...metrics }),
      renderer,
      adapters,
      ...metrics,
      // Schedules fire on workers; without Redis they live in this process's timers (lost on restart).
      scheduler: o.scheduler ?? state.scheduler(logger.child({ component: 'scheduler' })),
      // The adapters are also governance's surfaces: their approval buttons and user groups.
      governance: o.governance ?? createGovernance(config, logger, { state, audit, overrides: o, surfaces: adapters }),
      // 👍/👎 on answers: looked up in the answer ledger (the same store), one audit line and a count each.
      feedback: new FeedbackDesk({ store, audit, logger: logger.child({ component: 'feedback' }), ...metrics }),
      // Read-only SQL sources (THREADLAB_SOURCES_FILE): one audit line per query; credentials stay in the edge.
      ...(o.sources || config.sources.length > 0
        ? { sources: auditedSources(o.sources ?? createSources(config, logger), audit) }
        : {}),
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
