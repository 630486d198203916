import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { FakeDiscord } from '../../fakes/fake-discord/index.js';
import { FakeOpenAiServer } from '../../fakes/fake-openai-server.js';
import { FakeSlack } from '../../fakes/fake-slack/index.js';
import { freePort, startPrivateRedis, type PrivateRedis } from '../../support/redis-server.js';
import { removeContainersOf } from './containers.js';
import { spawnThreadlab, stopProcess, waitUntil, type ThreadlabProcess } from './processes.js';

/** A bot token of the shape DISCORD_TOKEN expects; the fake accepts any. */
const DISCORD_TOKEN = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GfakeA.rolestest-0123456789abcdefghij';

/**
 * Everything the split-role processes talk to, on 127.0.0.1: a private redis-server (BullMQ's key
 * prefix is not configurable through the environment, so isolation is a Redis of our own, and
 * stopping it drops every key), Slack in Socket Mode, Discord, and an OpenAI-compatible model.
 *
 * Storage: by default all workers share one THREADLAB_DATA_DIR, modelling the shared volume the
 * failover story relies on (a surviving worker restores the thread's files from it). With
 * `{ sharedWorkerStorage: false }` every worker gets a data dir of its own (no shared storage). The
 * gateway always gets its own: it keeps no files.
 */
export class RolesCluster {
  readonly processes: ThreadlabProcess[] = [];
  redis!: PrivateRedis;
  slack!: FakeSlack;
  discord!: FakeDiscord;
  llm!: FakeOpenAiServer;
  readonly startedAtMs = Date.now();
  readonly workerDataDir = mkdtempSync(join(tmpdir(), 'threadlab-roles-workers-'));
  readonly gatewayDataDir = mkdtempSync(join(tmpdir(), 'threadlab-roles-gateway-'));
  readonly shutdownTimeoutMs = 8000;
  /** Whether workers share {@link workerDataDir}; else each gets its own (see {@link dataDirOf}). */
  readonly sharedWorkerStorage: boolean;
  private readonly ownDataDirs = new Map<string, string>();

  /** @param options.sharedWorkerStorage defaults to true: one data dir for all workers. */
  constructor(options: { sharedWorkerStorage?: boolean } = {}) {
    this.sharedWorkerStorage = options.sharedWorkerStorage ?? true;
  }

  async start(): Promise<void> {
    this.redis = await startPrivateRedis();
    this.slack = await new FakeSlack().start();
    this.discord = new FakeDiscord();
    await this.discord.start();
    this.llm = new FakeOpenAiServer();
    await this.llm.start();
  }

  env(dataDir: string): Record<string, string> {
    const image = process.env.THREADLAB_TEST_SANDBOX_IMAGE;
    if (!image) throw new Error('THREADLAB_TEST_SANDBOX_IMAGE is not set: run through the e2e project (global setup)');
    return {
      REDIS_URL: this.redis.url,
      THREADLAB_SANDBOX_IMAGE: image,
      THREADLAB_DATA_DIR: dataDir,
      THREADLAB_SANDBOX_POOL_SIZE: '1',
      // A fixed pool of one: the tests count the containers a worker creates, and time its shutdown with them.
      THREADLAB_SANDBOX_POOL_MAX: '1',
      THREADLAB_SANDBOX_MEMORY_MB: '512',
      THREADLAB_LOG_LEVEL: process.env.THREADLAB_TEST_LOG ?? 'warn',
      THREADLAB_SHUTDOWN_TIMEOUT_MS: String(this.shutdownTimeoutMs),
      THREADLAB_WEB_ENABLED: 'false',
      SLACK_BOT_TOKEN: this.slack.botToken,
      SLACK_APP_TOKEN: this.slack.appToken,
      SLACK_API_URL: this.slack.apiUrl,
      THREADLAB_SLACK_MODE: 'socket',
      DISCORD_TOKEN,
      DISCORD_APPLICATION_ID: this.discord.applicationId,
      DISCORD_API_URL: this.discord.apiUrl,
      OPENAI_API_KEY: 'sk-roles-e2e-0000000000000000',
      OPENAI_BASE_URL: this.llm.baseUrl,
      OPENAI_MODEL: 'fake-gpt',
      THREADLAB_LLM_STREAM: 'false',
    };
  }

  /**
   * Starts the fakes, a gateway and one worker per name (with `workerEnv` added), and waits until the gateway
   * holds the Slack connection. Returns the workers in the order named.
   */
  async startGatewayAndWorkers(names: string[], workerEnv: Record<string, string> = {}): Promise<ThreadlabProcess[]> {
    await this.start();
    const [, ...workers] = await Promise.all([
      this.spawn('gateway', 'gateway'),
      ...names.map((name) => this.spawn(name, 'worker', workerEnv)),
    ]);
    await this.slack.socket.waitForConnection(30_000);
    return workers;
  }

  /** Starts a process and waits until it is ready; `env` adds or overrides variables. */
  async spawn(name: string, role: 'gateway' | 'worker', env: Record<string, string> = {}): Promise<ThreadlabProcess> {
    const p = spawnThreadlab({
      name,
      role,
      env: { ...this.env(this.dataDirOf(name, role)), ...env },
      metricsPort: await freePort(),
    });
    this.processes.push(p);
    await p.ready();
    return p;
  }

  /** The THREADLAB_DATA_DIR a process of that name and role gets (created on first use). */
  dataDirOf(name: string, role: 'gateway' | 'worker'): string {
    if (role === 'gateway') return this.gatewayDataDir;
    if (this.sharedWorkerStorage) return this.workerDataDir;
    let dir = this.ownDataDirs.get(name);
    if (!dir) {
      dir = mkdtempSync(join(tmpdir(), `threadlab-roles-${name}-`));
      this.ownDataDirs.set(name, dir);
    }
    return dir;
  }

  /**
   * Waits (up to `timeoutMs`) until no thread holds a waiting or running event nor a drain lock in the
   * queue (adapters/redis/queue-scripts.ts: `P:t:<thread>`, `P:lock:<thread>`). A worker posts its reply
   * before it marks the event done: a test that kills the worker as soon as it sees the reply must wait
   * for this, or the survivor runs that event again (on a loaded machine the gap is long enough to hit).
   */
  async settled(timeoutMs = 20_000): Promise<void> {
    const redis = new Redis(this.redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redis.connect();
      await waitUntil(
        async () => {
          const [lists, locks] = await Promise.all([redis.keys('*:tl:t:*'), redis.keys('*:tl:lock:*')]);
          return lists.length === 0 && locks.length === 0;
        },
        { timeoutMs, what: 'the queue to hold no event and no thread lock', intervalMs: 100 },
      );
    } finally {
      redis.disconnect();
    }
  }

  get pids(): number[] {
    return this.processes.map((p) => p.pid);
  }

  /**
   * Kills what is left, removes every container our processes made (twice, 2 s apart, to catch a late
   * create), stops the fakes and Redis.
   */
  async cleanup(): Promise<void> {
    await Promise.all(this.processes.map((p) => stopProcess(p, 'SIGKILL').catch(() => undefined)));
    await removeContainersOf(this.pids).catch(() => undefined);
    // A create the engine was still carrying out for a killed process lands after the first sweep.
    await new Promise((r) => setTimeout(r, 2000));
    await removeContainersOf(this.pids).catch(() => undefined);
    await this.llm?.stop().catch(() => undefined);
    await this.slack?.stop().catch(() => undefined);
    await this.discord?.stop().catch(() => undefined);
    await this.redis?.stop().catch(() => undefined);
    rmSync(this.workerDataDir, { recursive: true, force: true });
    rmSync(this.gatewayDataDir, { recursive: true, force: true });
    for (const dir of this.ownDataDirs.values()) rmSync(dir, { recursive: true, force: true });
  }
}
