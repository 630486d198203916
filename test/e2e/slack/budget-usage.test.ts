import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlackAdapter } from '../../../adapters/slack/index.js';
import { loadConfig } from '../../../src/config/index.js';
import type { Bot } from '../../../src/core/bot.js';
import { DailyBudgets } from '../../../src/governance/budget/budget.js';
import { MemoryBudgetCounters } from '../../../src/governance/budget/budget-memory-counters.js';
import { createLogger } from '../../../src/logger.js';
import { buildBot } from '../../../app/index.js';
import { appMention, BOT_USER_ID, FakeSlack, slashCommand } from '../../fakes/fake-slack/index.js';
import { TEAM_ID, USER_ID } from '../../fakes/fake-slack/payloads.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { startAdapter } from './support.js';
import { SlackTransport } from './transport.js';
import { withinOneUtcDay } from '../../support/utc-day.js';

const logger = createLogger({ level: 'silent' });

// Daily budgets count on the real clock: the test runs inside one UTC day.
beforeAll(() => withinOneUtcDay(2 * 60_000), 200_000);

describe('Slack: /interpreter usage and a spent token budget through bolt, against the fake Slack, on the real core (Bot)', () => {
  let fake: FakeSlack;
  let adapter: SlackAdapter;
  let bot: Bot;
  let send: SlackTransport;
  let budgets: DailyBudgets;
  let dataDir: string;

  beforeAll(async () => {
    fake = await new FakeSlack().start();
    dataDir = mkdtempSync(join(tmpdir(), 'threadlab-slack-budget-'));
    const config = loadConfig({
      THREADLAB_DATA_DIR: dataDir,
      THREADLAB_WEB_ENABLED: 'false',
      THREADLAB_BUDGET_USER_DAILY_TOKENS: '1000',
    });
    budgets = new DailyBudgets({ counters: new MemoryBudgetCounters(), limits: config.budgets, logger });
    bot = await buildBot(config, logger, { overrides: { sandbox: new FakeSandbox(), adapters: [], budgets } });
    await bot.start({ gateway: false });
    adapter = await startAdapter(fake, 'http', bot);
    bot.addAdapter(adapter);
    send = new SlackTransport(fake, adapter, 'http');
  });
  afterAll(async () => {
    await bot?.stop();
    await fake?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers /interpreter usage privately with what is left, and refuses a question once the budget is spent', async () => {
    const subject = { platform: 'slack', workspace: TEAM_ID, user: USER_ID };
    await budgets.forTurn(subject).charge({ tokens: 850 });

    const url = fake.responseUrl('usage');
    await send.command(slashCommand({ text: 'usage', responseUrl: url }));
    const usage = await fake.waitFor(() => fake.state.responses.find((r) => r.id === 'usage'), { what: 'the usage' });
    expect(usage.body).toMatchObject({ response_type: 'ephemeral' });
    expect(JSON.stringify(usage.body)).toContain(
      'You, model tokens: 850 tokens of 1,000 tokens used (85 %), 150 tokens left',
    );

    await budgets.forTurn(subject).charge({ tokens: 200 });
    const mention = appMention({ text: `<@${BOT_USER_ID}> what is 6 * 7?` });
    await send.event(mention);
    const refused = await fake.waitFor(
      () => fake.state.messages.find((m) => m.thread_ts === mention.ts && m.text.includes('budget')),
      { what: 'the refusal in the thread' },
    );
    expect(refused.text).toMatch(
      /You have used your daily model token budget \(1,050 tokens of 1,000 tokens\), so this message was not run\. It resets at 00:00 UTC/,
    );
  });
});
