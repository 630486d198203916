import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeDiscord } from '../../fakes/fake-discord/index.js';
import { FakeOpenAiServer } from '../../fakes/fake-openai-server.js';
import { FakeSlack } from '../../fakes/fake-slack/index.js';
import { freePort } from '../../support/redis-server.js';
import { sandboxRuntimeEnv } from '../../support/sandbox-runtime.js';
import { removeContainersOf, sandboxContainers } from '../roles/containers.js';
import { spawnThreadlab, stopProcess, type ThreadlabProcess } from '../roles/processes.js';

/** A bot token of the shape DISCORD_TOKEN expects; the fake accepts any. */
export const DISCORD_TOKEN = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GfakeA.shippedtest-0123456789abcdefghi';

/** Which platforms the spawned process is configured for, and its sandbox runtime. */
export interface ShippedBotOptions {
  slack?: boolean;
  discord?: boolean;
  web?: boolean;
  /**
   * Keep THREADLAB_SANDBOX_RUNTIME as shipped (`auto`: gVisor where the engine has it) rather than the
   * project's runtime (runc in e2e). A few files whose behaviour reaches the runtime (every platform at once,
   * idle kernels going lean, variables saved on SIGTERM) set it; the rest test the platforms and the product's
   * composition, which do not depend on the runtime, and gVisor's ptrace platform would only add CPU time.
   * What does depend on it runs under gVisor in `integration-runsc`.
   */
  runtimeAsShipped?: boolean;
}

/**
 * One `threadlab start` child process — the real composition root, every adapter module loaded as in
 * production — against local fakes of Slack (Socket Mode), Discord and an OpenAI-compatible model, with
 * the real Docker engine, a temporary THREADLAB_DATA_DIR and a one-container warm pool.
 */
export class ShippedBot {
  readonly dataDir = mkdtempSync(join(tmpdir(), 'threadlab-shipped-'));
  slack!: FakeSlack;
  discord!: FakeDiscord;
  llm!: FakeOpenAiServer;
  process!: ThreadlabProcess;
  webPort = 0;
  private readonly options: Required<ShippedBotOptions>;

  constructor(options: ShippedBotOptions = { slack: true, discord: true, web: true }) {
    this.options = { slack: false, discord: false, web: false, runtimeAsShipped: false, ...options };
  }

  /** Base URL of the web chat (when configured). */
  get webUrl(): string {
    return `http://127.0.0.1:${this.webPort}`;
  }

  /** The environment `threadlab start` gets; `extra` adds or overrides variables. */
  env(extra: Record<string, string> = {}): Record<string, string> {
    const image = process.env.THREADLAB_TEST_SANDBOX_IMAGE;
    if (!image) throw new Error('THREADLAB_TEST_SANDBOX_IMAGE is not set: run through the e2e project (global setup)');
    const { slack, discord, web, runtimeAsShipped } = this.options;
    return {
      THREADLAB_SANDBOX_IMAGE: image,
      ...(runtimeAsShipped ? { THREADLAB_SANDBOX_RUNTIME: 'auto' } : sandboxRuntimeEnv()),
      THREADLAB_DATA_DIR: this.dataDir,
      THREADLAB_SANDBOX_POOL_SIZE: '1',
      THREADLAB_SANDBOX_MEMORY_MB: '512',
      THREADLAB_LOG_LEVEL: process.env.THREADLAB_TEST_LOG ?? 'warn',
      THREADLAB_SHUTDOWN_TIMEOUT_MS: '5000',
      OPENAI_API_KEY: 'sk-shipped-e2e-0000000000000000',
      OPENAI_BASE_URL: this.llm.baseUrl,
      OPENAI_MODEL: 'fake-gpt',
      THREADLAB_LLM_STREAM: 'false',
      THREADLAB_LLM_MAX_RETRIES: '0',
      THREADLAB_WEB_ENABLED: web ? 'true' : 'false',
      ...(web ? { THREADLAB_WEB_HOST: '127.0.0.1', THREADLAB_WEB_PORT: String(this.webPort) } : {}),
      ...(slack
        ? {
            SLACK_BOT_TOKEN: this.slack.botToken,
            SLACK_APP_TOKEN: this.slack.appToken,
            SLACK_API_URL: this.slack.apiUrl,
            THREADLAB_SLACK_MODE: 'socket',
          }
        : {}),
      ...(discord
        ? {
            DISCORD_TOKEN,
            DISCORD_APPLICATION_ID: this.discord.applicationId,
            DISCORD_API_URL: this.discord.apiUrl,
          }
        : {}),
      ...extra,
    };
  }

  /** Starts the fakes; then spawns the process and waits until it is ready and connected. */
  async start(extraEnv: Record<string, string> = {}): Promise<void> {
    await this.startFakes();
    await this.spawn(extraEnv);
    await this.process.ready(120_000);
    if (this.options.slack) await this.slack.socket.waitForConnection();
    if (this.options.discord) await this.discord.gateway.whenIdentified();
  }

  /** Starts the fake Slack, Discord and model servers on 127.0.0.1 and picks the web chat's port. */
  async startFakes(): Promise<void> {
    this.slack = await new FakeSlack().start();
    this.discord = new FakeDiscord();
    await this.discord.start();
    this.llm = new FakeOpenAiServer();
    await this.llm.start();
    this.webPort = await freePort();
  }

  /**
   * Spawns `threadlab start` without waiting for it to be ready (the fakes must be started); `prefix` is a
   * command that runs it in its place (e.g. `prlimit --nofile=1024:1024`).
   */
  async spawn(extraEnv: Record<string, string> = {}, prefix?: string[]): Promise<ThreadlabProcess> {
    const metricsPort = await freePort();
    this.process = spawnThreadlab({
      name: 'shipped',
      role: 'all',
      env: this.env(extraEnv),
      metricsPort,
      ...(prefix ? { prefix } : {}),
    });
    return this.process;
  }

  /** Sandbox containers the process owns right now. */
  containers(): ReturnType<typeof sandboxContainers> {
    return sandboxContainers([this.process.pid]);
  }

  /** SIGKILLs what is left, removes its containers, stops the fakes and deletes the data dir. */
  async cleanup(): Promise<void> {
    if (this.process) {
      await stopProcess(this.process, 'SIGKILL').catch(() => undefined);
      await removeContainersOf([this.process.pid]).catch(() => undefined);
    }
    await this.llm?.stop().catch(() => undefined);
    await this.slack?.stop().catch(() => undefined);
    await this.discord?.stop().catch(() => undefined);
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
