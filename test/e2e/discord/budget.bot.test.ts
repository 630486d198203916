import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisBudgetCounters } from '../../../adapters/redis/redis-budget-counters.js';
import { DailyBudgets } from '../../../src/governance/budget/budget.js';
import { FakeDiscord } from '../../fakes/fake-discord/index.js';
import { deleteKeys, testRedis } from '../../integration/queue/redis-server.js';
import { startDiscordBot, type DiscordBotRig } from './bot-rig.js';
import { silentLogger } from './harness.js';
import { withinOneUtcDay } from '../../support/utc-day.js';

// Daily budgets count on the real clock: the test runs inside one UTC day.
beforeAll(() => withinOneUtcDay(2 * 60_000), 200_000);

describe('Discord: a workspace run-time budget in Redis through the real discord.js client, Bot and DockerSandbox', () => {
  let fake: FakeDiscord;
  let redis: Awaited<ReturnType<typeof testRedis>>;
  const keyPrefix = `test-${randomUUID()}`;
  const logger = silentLogger();

  let rig: DiscordBotRig | undefined;
  beforeAll(async () => {
    redis = await testRedis();
    rig = await startDiscordBot('budget', {
      env: { THREADLAB_BUDGET_WORKSPACE_DAILY_RUN_SECONDS: '1' },
      // The counters the composition root (app/) builds when REDIS_URL is set, under a prefix of this test's own.
      overrides: (config) => ({
        budgets: new DailyBudgets({
          counters: new RedisBudgetCounters({ redisUrl: redis.url, logger, keyPrefix }),
          limits: config.budgets,
          logger,
        }),
      }),
    });
    ({ fake } = rig);
  });

  afterAll(async () => {
    await rig?.stop();
    if (redis) {
      await deleteKeys(redis.url, keyPrefix);
      await redis.stop();
    }
  });

  const command = (name: string, options: { name: string; type: number; value: string }[] = []) =>
    fake.slashCommand({ name, options });
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
