import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import { loadConfig } from '../../src/config/index.js';
import type { Logger } from '../../src/logger.js';
import { buildBot } from '../../app/index.js';
import { DockerSandbox, threadFilesDir, poolDemandFile, type SandboxRuntime } from '../../app/sandbox-kit.js';
import { freePort } from '../free-port.js';

export interface BurstBotOptions {
  docker: Docker;
  image: string;
  /** The environment the bot would start with; the web chat, data directory, runtime and pool are set here. */
  env: NodeJS.ProcessEnv;
  /** THREADLAB_DATA_DIR: a second bot on the same one is a restart. */
  dataDir: string;
  runtime: SandboxRuntime;
  poolSize: number;
  poolMax: number;
  /** Threads started at once: the per-user limits are raised to them (one web user stands for N people). */
  threads: number;
  logger: Logger;
}

/** A bot of the bench, running: its web chat's address, its sandbox, and the pool hits counted since `hits` was reset. */
export interface BurstBot {
  base: string;
  sandbox: DockerSandbox;
  counts: { hits: number };
  /** When `start` began, from performance.now(). */
  startedAt: number;
  stop: () => Promise<void>;
}

/**
 * Starts a bot as `threadlab start` would (web chat only), with a sandbox of its own whose pool hits are counted
 * and whose pool remembers its demand in the data directory, as the bot's does.
 */
export async function startBurstBot(o: BurstBotOptions): Promise<BurstBot> {
  const startedAt = performance.now();
  const port = await freePort();
  const config = loadConfig({
    ...o.env,
    SLACK_BOT_TOKEN: undefined,
    SLACK_APP_TOKEN: undefined,
    DISCORD_TOKEN: undefined,
    REDIS_URL: undefined,
    THREADLAB_WEB_ENABLED: 'true',
    THREADLAB_WEB_HOST: '127.0.0.1',
    THREADLAB_WEB_PORT: String(port),
    THREADLAB_DATA_DIR: o.dataDir,
    THREADLAB_SANDBOX_RUNTIME: o.runtime,
    THREADLAB_SANDBOX_POOL_SIZE: String(o.poolSize),
    THREADLAB_SANDBOX_POOL_MAX: String(o.poolMax),
    THREADLAB_USER_MAX_CONCURRENT: String(Math.max(o.threads, 2)),
    THREADLAB_USER_MAX_PER_MINUTE: String(Math.max(o.threads * 4, 20)),
  });
  const counts = { hits: 0 };
  const sandbox = new DockerSandbox({
    docker: o.docker,
    image: o.image,
    limits: config.sandbox,
    dataDir: threadFilesDir(config.dataDir),
    demandFile: poolDemandFile(config.dataDir),
    runtime: o.runtime,
    logger: o.logger,
    instanceId: `bench-burst-${process.pid}-${randomBytes(3).toString('hex')}`,
    observer: { size: () => {}, sessions: () => {}, hit: () => (counts.hits += 1), miss: () => {} },
  });
  let bot: Awaited<ReturnType<typeof buildBot>> | undefined;
  try {
    await sandbox.start();
    bot = await buildBot(config, o.logger, { overrides: { sandbox } });
    await bot.start();
  } catch (err) {
    // The bot's stop closes the sandbox (its containers go); without a bot it is closed here.
    if (bot) await bot.stop();
    else await sandbox.close();
    throw err;
  }
  const running = bot;
  return { base: `http://127.0.0.1:${port}`, sandbox, counts, startedAt, stop: () => running.stop() };
}
