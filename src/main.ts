/**
 * The composition root: the one place that knows every implementation. Everything else depends on
 * the ports in src/ports.
 */
import { mkdirSync } from 'node:fs';
import type { Config } from './config.js';
import { ThreadlabError } from './domain/errors.js';
import type { Logger } from './logger.js';
import type { JobQueue } from './ports/job-queue.js';
import type { PlatformAdapter } from './ports/platform-adapter.js';
import type { Sandbox } from './ports/sandbox.js';
import type { SessionStore } from './ports/session-store.js';
import { Runtime, type RuntimeDeps } from './core/runtime.js';
import { InProcessJobQueue } from './queue/in-process-queue.js';
import { MemorySessionStore } from './sessions/memory-session-store.js';
import { createDocker } from './cli/infra.js';
import { createOpenAiLlmClient } from '../adapters/openai/index.js';
import { SharpArtifactRenderer } from '../adapters/render/sharp-renderer.js';
import { createSlackAdapter } from '../adapters/slack/index.js';
import { createDiscordAdapter } from '../adapters/discord/index.js';
import { WebChatAdapter } from '../adapters/web/index.js';
import { BullMqJobQueue } from '../adapters/redis/bullmq-queue.js';
import { RedisSessionStore } from '../adapters/redis/redis-session-store.js';
import { createDockerSandbox } from '../sandbox/index.js';
import { sandboxImageTag } from '../sandbox/image-builder.js';

export type Role = 'all' | 'gateway' | 'worker';

export interface BuildOptions {
  role?: Role;
  /** Replace any dependency (tests, the CLI's one-shot commands). */
  overrides?: Partial<RuntimeDeps>;
}

/** A sandbox for the gateway role, which never runs code: any use is a wiring bug, said plainly. */
function noSandbox(): Sandbox {
  const fail = (): never => {
    throw new ThreadlabError('internal', 'This process runs the gateway role, which has no sandbox; jobs run on workers.');
  };
  return { run: fail, putFile: fail, listFiles: fail, readFile: fail, previewFiles: fail, reset: fail, isLive: () => false, environment: fail, close: async () => {} };
}

export function createSandbox(config: Config, logger: Logger, instanceId?: string): Sandbox {
  return createDockerSandbox({
    docker: createDocker(config.env.DOCKER_HOST),
    image: config.sandbox.image ?? sandboxImageTag(),
    limits: config.sandbox,
    dataDir: config.dataDir,
    logger: logger.child({ component: 'sandbox' }),
    ...(instanceId ? { instanceId } : {}),
  });
}

export function createAdapters(config: Config, logger: Logger): PlatformAdapter[] {
  const adapters: PlatformAdapter[] = [];
  if (config.slack.enabled) adapters.push(createSlackAdapter(config, logger));
  if (config.discord.enabled) adapters.push(createDiscordAdapter(config, logger));
  if (config.web.enabled) {
    adapters.push(
      new WebChatAdapter({
        host: config.web.host,
        port: config.web.port,
        dataDir: config.dataDir,
        maxUploadBytes: config.sandbox.maxFileBytes,
        logger,
        ...(config.web.token ? { token: config.web.token } : {}),
      }),
    );
  }
  return adapters;
}

function createQueueAndStore(config: Config, logger: Logger): { queue: JobQueue; store: SessionStore } {
  const limits = {
    userMaxConcurrent: config.env.THREADLAB_USER_MAX_CONCURRENT,
    userMaxPerMinute: config.env.THREADLAB_USER_MAX_PER_MINUTE,
    workspaceMaxConcurrent: config.env.THREADLAB_WORKSPACE_MAX_CONCURRENT,
    workspaceMaxPerMinute: config.env.THREADLAB_WORKSPACE_MAX_PER_MINUTE,
    maxQueueLength: config.env.THREADLAB_QUEUE_MAX_LENGTH,
  };
  const redisUrl = config.env.REDIS_URL;
  if (!redisUrl) {
    return {
      queue: new InProcessJobQueue({ logger: logger.child({ component: 'queue' }), concurrency: config.env.THREADLAB_CONCURRENCY, limits }),
      store: new MemorySessionStore(),
    };
  }
  return {
    queue: new BullMqJobQueue({ redisUrl, logger: logger.child({ component: 'queue' }), concurrency: config.env.THREADLAB_CONCURRENCY, limits }),
    store: new RedisSessionStore({ redisUrl }),
  };
}

/** Builds the runtime for a role from configuration; `overrides` replace any dependency. */
export function buildRuntime(config: Config, logger: Logger, options: BuildOptions = {}): Runtime {
  const role = options.role ?? 'all';
  const o = options.overrides ?? {};
  mkdirSync(config.dataDir, { recursive: true });
  const needs = { queue: !o.queue, store: !o.store };
  const made = needs.queue || needs.store ? createQueueAndStore(config, logger) : undefined;
  const llm = 'llm' in o ? o.llm : createOpenAiLlmClient(config.llm, logger.child({ component: 'llm' }));
  return new Runtime({
    config,
    logger,
    sandbox: o.sandbox ?? (role === 'gateway' ? noSandbox() : createSandbox(config, logger)),
    ...(llm ? { llm } : {}),
    store: o.store ?? made!.store,
    queue: o.queue ?? made!.queue,
    renderer: o.renderer ?? new SharpArtifactRenderer({ logger }),
    adapters: o.adapters ?? createAdapters(config, logger),
  });
}
