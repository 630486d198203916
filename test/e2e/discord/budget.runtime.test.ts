import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiscordAdapter } from '../../../adapters/discord/index.js';
import { RedisBudgetCounters } from '../../../adapters/redis/redis-budget-counters.js';
import { loadConfig } from '../../../src/config.js';
import type { Runtime } from '../../../src/core/runtime.js';
import { DailyBudgets } from '../../../src/governance/budget.js';
import { buildRuntime, createDiscordAdapter } from '../../../src/main.js';
import { createDockerSandbox, type DockerSandbox } from '../../../sandbox/index.js';
import { FakeDiscord, payloads } from '../../fakes/fake-discord/index.js';
import { deleteKeys, testRedis } from '../../integration/queue/redis-server.js';
import { sandboxImage } from '../../support/sandbox-image.js';
import { FAKE_TOKEN, silentLogger } from './harness.js';

const docker = new Docker();

describe('Discord: a workspace run-time budget in Redis through the real discord.js client, Runtime and DockerSandbox', () => {
  let fake: FakeDiscord;
  let sandbox: DockerSandbox;
  let adapter: DiscordAdapter;
  let runtime: Runtime;
  let dataDir: string;
  let redis: Awaited<ReturnType<typeof testRedis>>;
  const keyPrefix = `test-${randomUUID()}`;
  const logger = silentLogger();

  beforeAll(async () => {
    redis = await testRedis();
    fake = new FakeDiscord();
    await fake.start();
    dataDir = mkdtempSync(join(tmpdir(), 'threadlab-discord-budget-'));
    const config = loadConfig({
      DISCORD_TOKEN: FAKE_TOKEN,
      DISCORD_APPLICATION_ID: fake.applicationId,
      DISCORD_API_URL: fake.apiUrl,
      THREADLAB_DATA_DIR: dataDir,
      THREADLAB_WEB_ENABLED: 'false',
      THREADLAB_SANDBOX_POOL_SIZE: '0',
      THREADLAB_BUDGET_WORKSPACE_DAILY_RUN_SECONDS: '1',
    });
    sandbox = await createDockerSandbox({
      docker,
      image: await sandboxImage(),
      limits: { ...config.sandbox, timeoutMs: 30_000 },
      dataDir,
      logger,
      instanceId: `test-discord-budget-${process.pid}-${Date.now().toString(36)}`,
    });
    adapter = createDiscordAdapter(config, { logger });
    // The counters main.ts builds when REDIS_URL is set, under a prefix of this test's own.
    const counters = new RedisBudgetCounters({ redisUrl: redis.url, logger, keyPrefix });
    const budgets = new DailyBudgets({ counters, limits: config.budgets, logger });
    runtime = await buildRuntime(config, logger, { overrides: { sandbox, adapters: [adapter], budgets } });
    await runtime.start();
  });

  afterAll(async () => {
    await runtime?.stop();
    await fake?.stop();
    if (redis) {
      await deleteKeys(redis.url, keyPrefix);
      await redis.stop();
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const command = (name: string, options: { name: string; type: number; value: string }[] = []) =>
    fake.interaction(
      payloads.slashCommand({
        applicationId: fake.applicationId,
        guildId: fake.guildId,
        channel: { id: fake.textChannelId, type: 0 },
        user: fake.human,
        name,
        options,
      }),
    );
  const answer = async (interaction: Record<string, unknown>, pattern: RegExp) =>
    String(
      (
        await fake.waitForRequest(
          (r) =>
            r.path.startsWith(`/webhooks/${fake.applicationId}/${String(interaction.token)}`) &&
            pattern.test(String(r.json?.content ?? '')),
          60_000,
        )
      ).json.content,
    );

  it('warns past 80 %, shows the remaining budget with /usage, then refuses /run saying when it resets', async () => {
    const first = command('run', [{ name: 'code', type: 3, value: 'import time\ntime.sleep(1.2)\nprint("slept")' }]);
    const warned = await answer(first, /daily code run-time budget/);
    expect(warned).toContain('slept');
    expect(warned).toMatch(/This workspace has used \d+ % of its daily code run-time budget \([\d.]+ s of 1 s\)/);
    expect(warned).toMatch(/It resets at 00:00 UTC \(\d{4}-\d\d-\d\d\), in \d/);

    const usage = await answer(command('usage'), /Usage today/);
    expect(usage).toMatch(/This workspace, run time: 1\.\d s of 1 s used \(100 %\), 0 s left/);
    expect(usage).toContain('You, run time:');

    const refused = await answer(command('run', [{ name: 'code', type: 3, value: 'print("must not run")' }]), /budget/);
    expect(refused).toMatch(
      /This workspace has used its daily code run-time budget \([\d.]+ s of 1 s\), so this message was not run\. It resets at 00:00 UTC/,
    );
    expect(refused).not.toContain('must not run');
  }, 120_000);
});
