import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DiscordAdapter } from '../../../adapters/discord/index.js';
import { loadConfig, type Config } from '../../../src/config/index.js';
import type { Bot } from '../../../src/core/bot.js';
import { buildBot, type BuildOptions } from '../../../app/index.js';
import { createDiscordAdapter } from '../../../app/discord.js';
import type { DockerSandbox } from '../../../sandbox/index.js';
import { FakeDiscord } from '../../fakes/fake-discord/index.js';
import type { FakeOpenAiServer } from '../../fakes/fake-openai-server.js';
import { fakeModelEnv, rigSandbox } from '../../support/rig-parts.js';
import { FAKE_TOKEN, silentLogger } from './harness.js';

/** The real Bot with the real discord.js adapter against the fake Discord, and a real Docker sandbox. */
export interface DiscordBotRig {
  fake: FakeDiscord;
  sandbox: DockerSandbox;
  adapter: DiscordAdapter;
  bot: Bot;
  config: Config;
  dataDir: string;
  /** Stops the runtime and the fake and deletes the data dir. */
  stop: () => Promise<void>;
}

export interface DiscordBotRigOptions {
  /**
   * More configuration, over the rig's (Discord through the fake, no web chat, no warm pool); a function
   * when it names the fake's ids (channels, users, roles).
   */
  env?: Record<string, string> | ((fake: FakeDiscord) => Record<string, string>);
  /** A started fake model: the configuration points at it. */
  llm?: FakeOpenAiServer;
  /** Parts of the runtime a test builds itself, from the configuration. */
  overrides?: (config: Config) => BuildOptions['overrides'];
}

/**
 * Starts the Discord rig the runtime tests share: the fake Discord, a configuration from the environment a
 * user would set, a DockerSandbox with a 30 s run limit under a unique instance id, the adapter and the
 * Bot, started.
 */
export async function startDiscordBot(name: string, options: DiscordBotRigOptions = {}): Promise<DiscordBotRig> {
  const logger = silentLogger();
  const fake = new FakeDiscord();
  await fake.start();
  const dataDir = mkdtempSync(join(tmpdir(), `threadlab-discord-${name}-`));
  const config = loadConfig({
    DISCORD_TOKEN: FAKE_TOKEN,
    DISCORD_APPLICATION_ID: fake.applicationId,
    DISCORD_API_URL: fake.apiUrl,
    THREADLAB_DATA_DIR: dataDir,
    THREADLAB_WEB_ENABLED: 'false',
    THREADLAB_SANDBOX_POOL_SIZE: '0',
    ...fakeModelEnv(`discord-${name}`, options.llm),
    ...(typeof options.env === 'function' ? options.env(fake) : options.env),
  });
  const sandbox = await rigSandbox(config, dataDir, logger, `discord-${name}`);
  const adapter = createDiscordAdapter(config, { logger });
  const bot = await buildBot(config, logger, {
    overrides: { sandbox, adapters: [adapter], ...options.overrides?.(config) },
  });
  await bot.start();
  return {
    fake,
    sandbox,
    adapter,
    bot,
    config,
    dataDir,
    stop: async () => {
      await bot.stop();
      await fake.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
