import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { DailyBudgets } from '../../../src/governance/budget/budget.js';
import { MemoryBudgetCounters } from '../../../src/governance/budget/budget-memory-counters.js';
import type { ApprovalDecision, ApprovalHook } from '../../../src/ports/approval.js';
import { foldProgress, initialStatus, renderStatus } from '../../../adapters/discord/progress-text.js';
import {
  applyProgress,
  initialProgress,
  MAX_QUERY_LINES,
  renderProgress,
} from '../../../adapters/slack/progress-view.js';
import { RunTasks } from '../../../adapters/slack/run-tasks.js';
import { answer, ScriptedLlm, toolCalls } from '../../fakes/scripted-llm.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { MemoryDataSources, salesSource } from '../../fakes/memory-data-sources.js';
import { rig, silentLogger, THREAD } from '../interpreter/helpers.js';

const scope = { platform: 'web', user: 'u1', place: 'web' };
const query = (sql: string) =>
  toolCalls([{ id: 'q', name: 'query_source', arguments: JSON.stringify({ source: 'sales', sql }) }]);

function setup(steps: NonNullable<ConstructorParameters<typeof ScriptedLlm>[0]>['steps']) {
  const llm = new ScriptedLlm({ steps });
  const sandbox = new FakeSandbox({ handler: () => ({ stdout: 'preview\n', durationMs: 40 }) });
  const sources = new MemoryDataSources([salesSource()]);
  const { interpreter } = rig({ llm, sandbox, sources });
  return { llm, sandbox, sources, interpreter };
}

describe('approval before a query (THREADLAB_APPROVAL=ask)', () => {
  it('shows the SQL with its source before it runs, and a Skip leaves the server unasked', async () => {
    const asked: Parameters<ApprovalHook>[0][] = [];
    const decisions: ApprovalDecision[] = [
      { kind: 'skip', by: 'u1' },
      { kind: 'run', by: 'u1' },
    ];
    const approve: ApprovalHook = async (request) => {
      asked.push(request);
      return decisions.shift()!;
    };
    const { llm, sources, interpreter } = setup([query('SELECT 1'), query('SELECT 2'), answer('ok')]);
    await interpreter.handle({ threadKey: THREAD, text: 'q', uploaded: [] }, { scope, approve });
    expect(asked.map((a) => [a.language, a.code])).toEqual([
      ['sql', '-- source: sales\nSELECT 1'],
      ['sql', '-- source: sales\nSELECT 2'],
    ]);
    expect(llm.requests[1]!.messages.at(-1)!.content).toMatch(/did NOT run: The user chose Skip/);
    expect(sources.queries.map((q) => q.sql)).toEqual(['SELECT 2']);
  });
});

describe('query time against the daily run-time budget', () => {
  const budgets = () =>
    new DailyBudgets({
      counters: new MemoryBudgetCounters(),
      limits: loadConfig({ THREADLAB_BUDGET_USER_DAILY_RUN_SECONDS: '1' }).budgets,
      logger: silentLogger,
    });
  const subject = { platform: 'web', workspace: 'local', user: 'u1' };

  it('charges the query and its loading run, and refuses a query once the budget is spent', async () => {
    const daily = budgets();
    const { sources, interpreter } = setup([]);
    const budget = daily.forTurn(subject);
    const first = await interpreter.queryDirect(
      { threadKey: THREAD, fence: { source: 'sales', sql: 'SELECT 1' } },
      { scope, budget },
    );
    expect(first.runs).toHaveLength(1);
    // The fake server's 7 ms and the loading run's 40 ms.
    expect(await budget.runMsLeft()).toBe(1000 - 47);
    await budget.charge({ runMs: 1000 });
    const refused = await interpreter.queryDirect(
      { threadKey: THREAD, fence: { source: 'sales', sql: 'SELECT 2' } },
      { scope, budget: daily.forTurn(subject) },
    );
    expect(refused.text).toMatch(/^Not run: You have used your daily code run-time budget \(1 s of 1 s\)/);
    expect(sources.queries.map((q) => q.sql)).toEqual(['SELECT 1']);
  });
});

describe('the query step in Slack and Discord live status', () => {
  const events = [
    { type: 'query', round: 2, source: 'sales', sql: 'SELECT region FROM orders' },
    {
      type: 'query_finished',
      source: 'sales',
      outcome: { ok: true, rows: 1234, bytes: 2048, ms: 35, name: 'sales_q1', file: 'query_1_sales.csv' },
    },
  ] as const;

  it('shows the source and SQL while it runs, then its rows and time', () => {
    let discord = initialStatus();
    discord = foldProgress(discord, events[0]);
    expect(discord.headline).toBe('🗄️ Querying sales (step 2)…');
    expect(discord.code).toEqual({ language: 'sql', code: 'SELECT region FROM orders' });
    discord = foldProgress(discord, events[1]);
    expect(discord.headline).toBe('✔️ Query on sales: 1,234 rows (2.0 KB) in 35 ms → `sales_q1`');

    const slack = initialProgress();
    applyProgress(slack, events[0]);
    expect(slack.status).toBe('is querying sales…');
    applyProgress(slack, events[1]);
    expect(slack.phase).toContain('1,234 rows');
    const tasks = new RunTasks();
    tasks.apply(events[0]);
    tasks.apply(events[1]);
    expect(tasks.pending()).toEqual([
      expect.objectContaining({ title: 'Query 1: sales', status: 'complete', details: 'SELECT region FROM orders' }),
    ]);
  });

  it('says a failure in the words the port gave', () => {
    const failed = foldProgress(initialStatus(), {
      type: 'query_finished',
      source: 'sales',
      outcome: {
        ok: false,
        kind: 'timeout',
        message: 'The query on "sales" passed its 30 s limit and was cancelled.',
        ms: 30_000,
      },
    });
    expect(failed.headline).toBe(
      '✖️ Query on sales (30.0 s): The query on "sales" passed its 30 s limit and was cancelled.',
    );
  });
  it('keeps a finished query in view after the next step takes the headline (the status is written at most once a second)', () => {
    const next = { type: 'thinking', round: 3 } as const;
    let discord = initialStatus();
    for (const e of [...events, next]) discord = foldProgress(discord, e);
    expect(discord.headline).toBe('🤔 Thinking (step 3)…');
    expect(renderStatus(discord)).toContain('🗄️ ✔️ Query on sales: 1,234 rows (2.0 KB) in 35 ms → `sales_q1`');

    const slack = initialProgress();
    for (let i = 0; i < MAX_QUERY_LINES + 2; i++) for (const e of [...events, next]) applyProgress(slack, e);
    const shown = JSON.stringify(renderProgress(slack, { threadKey: 't', stoppable: false }).blocks);
    expect(shown).toContain('Thinking');
    // The last few queries only, each once.
    expect(shown.split('Query on sales: 1,234 rows')).toHaveLength(MAX_QUERY_LINES + 1);
  });
});
