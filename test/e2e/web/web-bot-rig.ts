import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { WebChatAdapter } from '../../../adapters/web/index.js';
import { LABELS } from '../../../sandbox/container-spec.js';
import { loadConfig } from '../../../src/config/index.js';
import type { Bot } from '../../../src/core/bot.js';
import { createLogger } from '../../../src/logger.js';
import { buildBot, createSandbox } from '../../../app/index.js';
import { sandboxRuntimeEnv } from '../../support/sandbox-runtime.js';

/** The web chat on the real core (Bot) and Docker sandbox, as the web tests of whole features use it. */
export interface WebBotRig {
  adapter: WebChatAdapter;
  bot: Bot;
  dataDir: string;
  instanceId: string;
  /** POSTs JSON to the web API and returns the parsed answer. */
  post: <T = { thread: { id: string } }>(path: string, body?: unknown) => Promise<T>;
  /** A thread's messages, as the page reads them. */
  messages: <M = { role: string; text: string }>(threadId: string) => Promise<M[]>;
  /**
   * Stops the runtime, removes what the sandbox left (it should be nothing) and the data dir; returns the
   * containers that were left, for the test to check.
   */
  stop: () => Promise<Docker.ContainerInfo[]>;
}

/**
 * Starts the web chat and the Bot on a fresh data dir, with no warm pool, on port 0, with `env` on top
 * (for the model, budgets, timeouts).
 */
export async function startWebBot(name: string, env: Record<string, string> = {}): Promise<WebBotRig> {
  const logger = createLogger({ level: process.env.THREADLAB_TEST_LOG ?? 'silent' });
  const instanceId = `web-${name}-${randomBytes(4).toString('hex')}`;
  const dataDir = await mkdtemp(join(tmpdir(), `threadlab-web-${name}-`));
  const config = loadConfig({
    THREADLAB_DATA_DIR: dataDir,
    THREADLAB_SANDBOX_IMAGE: process.env.THREADLAB_TEST_SANDBOX_IMAGE,
    THREADLAB_SANDBOX_POOL_SIZE: '0',
    THREADLAB_WEB_PORT: '0',
    ...sandboxRuntimeEnv(),
    ...env,
  });
  const adapter = new WebChatAdapter({ port: 0, dataDir, logger, maxUploadBytes: config.sandbox.maxFileBytes });
  const sandbox = await createSandbox(config, logger, { instanceId });
  const bot = await buildBot(config, logger, { overrides: { sandbox, adapters: [adapter] } });
  await bot.start();
  return {
    adapter,
    bot,
    dataDir,
    instanceId,
    post: async <T>(path: string, body?: unknown) => {
      const res = await fetch(`${adapter.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body ?? {}),
      });
      return (await res.json()) as T;
    },
    messages: async <M>(threadId: string) =>
      ((await (await fetch(`${adapter.url}/api/threads/${threadId}/messages`)).json()) as { messages: M[] }).messages,
    stop: async () => {
      await bot.stop();
      const docker = new Docker();
      const filters = { label: [`${LABELS.instance}=${instanceId}`] };
      const left = await docker.listContainers({ all: true, filters });
      await Promise.all(left.map((c) => docker.getContainer(c.Id).remove({ force: true })));
      await rm(dataDir, { recursive: true, force: true });
      return left;
    },
  };
}
