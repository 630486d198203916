import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SlackAdapter } from '../../../adapters/slack/index.js';
import { loadConfig } from '../../../src/config/index.js';
import type { Bot } from '../../../src/core/bot.js';
import { buildBot } from '../../../app/index.js';
import { createSlackAdapter } from '../../../app/slack.js';
import type { DockerSandbox } from '../../../sandbox/index.js';
import { FakeSlack } from '../../fakes/fake-slack/index.js';
import type { FakeOpenAiServer } from '../../fakes/fake-openai-server.js';
import { fakeModelEnv, rigSandbox } from '../../support/rig-parts.js';
import { SIGNING_SECRET, testLogger } from './support.js';
import { SlackTransport } from './transport.js';

/** The real Bot with the real bolt adapter in Socket Mode against the fake Slack, and a real Docker sandbox. */
export interface SlackBotRig {
  fake: FakeSlack;
  sandbox: DockerSandbox;
  adapter: SlackAdapter;
  bot: Bot;
  /** Sends events and commands as Slack would, over the Socket Mode connection. */
  send: SlackTransport;
  dataDir: string;
  /** Stops the runtime and the fake and deletes the data dir. */
  stop: () => Promise<void>;
}

export interface SlackBotRigOptions {
  /** More configuration, over the rig's (Slack through the fake in Socket Mode, no web chat, no warm pool). */
  env?: Record<string, string>;
  /** A started fake model: the configuration points at it. */
  llm?: FakeOpenAiServer;
  /** The adapter's retries. @defaultValue none */
  retryConfig?: { retries: number; minTimeout?: number; maxTimeout?: number };
}

/**
 * Starts the Slack rig the feature tests share: the fake Slack, a configuration from the environment a user
 * would set, a DockerSandbox with a 30 s run limit under a unique instance id, the adapter (live status every
 * 200 ms) and the Bot, started and connected.
 */
export async function startSlackBot(name: string, options: SlackBotRigOptions = {}): Promise<SlackBotRig> {
  const fake = await new FakeSlack().start();
  const dataDir = mkdtempSync(join(tmpdir(), `threadlab-slack-${name}-`));
  const config = loadConfig({
    SLACK_BOT_TOKEN: fake.botToken,
    SLACK_APP_TOKEN: fake.appToken,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fake.apiUrl,
    THREADLAB_SLACK_MODE: 'socket',
    THREADLAB_DATA_DIR: dataDir,
    THREADLAB_WEB_ENABLED: 'false',
    THREADLAB_SANDBOX_POOL_SIZE: '0',
    ...fakeModelEnv(`slack-${name}`, options.llm),
    ...options.env,
  });
  const sandbox = await rigSandbox(config, dataDir, testLogger, `slack-${name}`);
  const adapter = createSlackAdapter(config, testLogger, {
    retryConfig: options.retryConfig ?? { retries: 0 },
    progressIntervalMs: 200,
  });
  const bot = await buildBot(config, testLogger, { overrides: { sandbox, adapters: [adapter] } });
  await bot.start();
  await fake.socket.waitForConnection();
  return {
    fake,
    sandbox,
    adapter,
    bot,
    send: new SlackTransport(fake, adapter, 'socket'),
    dataDir,
    stop: async () => {
      await bot.stop();
      await fake.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
