import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { SharpArtifactRenderer } from '../../../adapters/render/sharp-renderer.js';
import { loadConfig } from '../../../src/config/index.js';
import { Bot } from '../../../src/core/bot.js';
import type { InboundMessage } from '../../../src/domain/messages.js';
import type { Schedule } from '../../../src/domain/schedule.js';
import { threadKey } from '../../../src/domain/thread-key.js';
import type { AuditRecord } from '../../../src/governance/audit/audit-record.js';
import { auditedSandbox } from '../../../src/governance/audit/audited-sandbox.js';
import { DailyBudgets } from '../../../src/governance/budget/budget.js';
import { MemoryBudgetCounters } from '../../../src/governance/budget/budget-memory-counters.js';
import { ThreadlabGovernance } from '../../../src/governance/governance.js';
import { createLogger } from '../../../src/logger.js';
import { InProcessJobQueue } from '../../../src/queue/in-process-queue.js';
import { DEFAULT_LIMITS } from '../../../src/queue/limits.js';
import { InProcessScheduler } from '../../../src/schedules/in-process-scheduler.js';
import { MAX_SCHEDULES_TOTAL } from '../../../src/schedules/schedules.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { FakeSandbox, type FakeRunHandler } from '../../fakes/fake-sandbox.js';
import { RecordingAdapter } from '../../fakes/recording-adapter.js';
import { ManualClock } from './manual-clock.js';

const logger = createLogger({ destination: new Writable({ write: (_c, _e, done) => done() }) });
const HOUR = 3_600_000;
const thread = { platform: 'discord' as const, workspace: 'g1', channel: 'c1', thread: 't1' };

function message(text: string, user = 'u1', extra: Partial<InboundMessage> = {}): InboundMessage {
  return {
    id: randomUUID(),
    thread,
    user: { id: user, name: user },
    text,
    attachments: [],
    receivedAtMs: Date.now(),
    ...extra,
  };
}
const schedule = (text: string, user = 'u1') =>
  message(`/schedule ${text}`, user, { command: { name: 'schedule', text } });

let current: Bot | undefined;
afterEach(async () => {
  await current?.stop();
  current = undefined;
});

function setup(
  env: Record<string, string> = {},
  handler?: FakeRunHandler,
  limits: Partial<typeof DEFAULT_LIMITS> = {},
) {
  const config = loadConfig({ THREADLAB_SHUTDOWN_TIMEOUT_MS: '200', ...env });
  const adapter = new RecordingAdapter('discord');
  const clock = new ManualClock(Date.now());
  const scheduler = new InProcessScheduler({ logger, clock });
  const audit: AuditRecord[] = [];
  const fake = new FakeSandbox(handler ? { handler } : {});
  const auditLog = { write: (r: AuditRecord) => void audit.push(r) };
  const budgets =
    config.budgets.userDailyRunSeconds > 0
      ? new DailyBudgets({ counters: new MemoryBudgetCounters(), limits: config.budgets, logger })
      : undefined;
  const bot = new Bot({
    governance: new ThreadlabGovernance({
      config,
      logger,
      audit: auditLog,
      ...(budgets ? { budgets } : {}),
    }),
    config,
    logger,
    sandbox: auditedSandbox(fake, auditLog),
    store: new MemoryConversationStore({ sweepIntervalMs: 0 }),
    queue: new InProcessJobQueue({ logger, limits: { ...DEFAULT_LIMITS, ...limits } }),
    renderer: new SharpArtifactRenderer(),
    adapters: [adapter],
    scheduler,
  });
  current = bot;
  const send = async (m: InboundMessage) => {
    await adapter.handler!.onMessage(m);
    return (await adapter.nextReply()).reply.text;
  };
  return { adapter, clock, scheduler, bot, audit, send, fake };
}

/**
 * Starts the bot, runs a cell in the thread and schedules its re-run every hour (schedule #1), each message once
 * the job before it let go of its slot (just after its reply), so a one-job-per-user limit refuses neither.
 */
async function startHourlyRerun(bot: Bot, send: (m: InboundMessage) => Promise<string>): Promise<void> {
  const settle = () => new Promise((r) => setTimeout(r, 100));
  await bot.start();
  await send(message('```python\nprint(1)\n```'));
  await settle();
  expect(await send(schedule('every 1h rerun'))).toMatch(/^Scheduled #1/);
  await settle();
}

const scheduleLines = (audit: AuditRecord[]) => audit.filter((r) => r.kind === 'schedule');

describe('Scheduled runs through the Bot (fake sandbox, test clock)', () => {
  it('re-runs the notebook on time as an ordinary job of the thread, with an audit line of origin schedule', async () => {
    const { bot, clock, send, adapter, audit, fake } = setup({}, ({ request }) => ({
      stdout: `ran ${request.code}\n`,
    }));
    await bot.start();
    expect(await send(message('```python\nprint(41 + 1)\n```'))).toContain('ran print(41 + 1)');
    expect(await send(schedule('every 1h rerun'))).toMatch(/^Scheduled #1: every 1h, re-run this thread's notebook/);
    await clock.advance(HOUR + 1000);
    const { reply, message: fired } = await adapter.nextReply();
    expect(reply.text).toMatch(/^_Scheduled run \(every 1h\) for u1\._/);
    expect(reply.text).toContain('Re-ran 1 of 1 cells');
    expect(reply.text).toContain('ran print(41 + 1)');
    expect(fired.user.id).toBe('u1');
    // A fresh container first (files and saved variables kept), then the notebook's one cell.
    const methods = fake.calls.map((c) => c.method);
    expect(methods.lastIndexOf('recycle')).toBeGreaterThan(-1);
    expect(methods.lastIndexOf('recycle')).toBeLessThan(methods.lastIndexOf('run'));
    expect(threadKey(fired.thread)).toBe(threadKey(thread));
    await clock.advance(HOUR);
    expect((await adapter.nextReply()).reply.text).toContain('Re-ran 1 of 1 cells');
    // The re-runs are not added to the notebook: it still has one cell.
    await clock.advance(HOUR);
    expect((await adapter.nextReply()).reply.text).toContain('Re-ran 1 of 1 cells');
    const lines = scheduleLines(audit);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({ kind: 'schedule', origin: 'schedule', user: 'u1', task: 'rerun', outcome: 'ok' });
    expect(lines[0]!.job).toMatch(/^schedule:sch-/);
    // The runs of a scheduled job carry its job id on their own lines.
    expect(audit.filter((r) => r.kind === 'run' && r.job === lines[0]!.job)).toHaveLength(1);
  });

  it('lists and cancels; only the creator (or an admin) may cancel', async () => {
    const { bot, send } = setup({ THREADLAB_SCHEDULE_MIN_INTERVAL: '1m' });
    await bot.start();
    expect(await send(schedule('list'))).toMatch(/No schedules in this thread/);
    expect(await send(schedule('every day 09:00 TZ=Asia/Tokyo How many orders?'))).toMatch(/^Scheduled #1/);
    expect(await send(schedule('every 30m what changed?', 'u2'))).toMatch(/^Scheduled #2/);
    const list = await send(schedule('list'));
    expect(list).toMatch(
      /#1 every day 09:00 \(Asia\/Tokyo\): ask “How many orders\?” — by u1, next \d{4}-\d\d-\d\d 09:00\n/,
    );
    expect(list).toContain('#2 every 30m: ask “what changed?” — by u2');
    expect(await send(schedule('cancel 2'))).toMatch(/Only u2 \(who made it\) or a Threadlab admin/);
    expect(await send(schedule('cancel 3'))).toMatch(/no schedule #3/);
    expect(await send(schedule('cancel 2', 'u2'))).toMatch(/^Cancelled schedule #2/);
    expect(await send(schedule('list'))).not.toContain('#2');
  });

  it('answers list and cancel at once, past the sender’s rate limit; another’s cancel is refused to them alone, by mention', async () => {
    const [ann, bob] = ['100000000000000001', '100000000000000002'];
    const { bot, send } = setup({ THREADLAB_SCHEDULE_MIN_INTERVAL: '1m' }, undefined, { userMaxPerMinute: 1 });
    await bot.start();
    expect(await send(schedule('every weekday at 9am how are sales?', ann))).toMatch(
      /^Scheduled #1: every weekday 09:00 \(UTC\)/,
    );
    // Ann's one request of this minute is spent: a question is refused, her schedule commands are not.
    expect(await bot.onMessage(message('what now?', ann))).toMatchObject({ accepted: false, reason: 'rate_limited' });
    expect(await bot.onMessage(schedule('list', ann))).toMatchObject({
      accepted: true,
      command: 'schedule',
      answer: expect.stringContaining(`— by <@${ann}>, next`),
    });
    expect(await bot.onMessage(schedule('cancel 1', bob))).toEqual({
      accepted: false,
      reason: 'not_allowed',
      message: `Only <@${ann}> (who made it) or a Threadlab admin can cancel schedule #1.`,
      tell: true,
    });
    expect(await bot.onMessage(schedule('daily sometime', ann))).toMatchObject({
      accepted: true,
      answer: expect.stringMatching(/Give a time of day[\s\S]*For example: `schedule every weekday at 9am/),
    });
    expect(await bot.onMessage(schedule('cancel 1', ann))).toMatchObject({
      accepted: true,
      answer: expect.stringMatching(/^Cancelled schedule #1 \(every weekday 09:00/),
    });
    expect(await bot.onMessage(schedule('cancel 1', ann))).toMatchObject({ reason: 'not_allowed', tell: true });
  });

  it('refuses what is over the bounds, clearly', async () => {
    const { bot, send } = setup({
      THREADLAB_SCHEDULES: '1/user,2/workspace',
      THREADLAB_SCHEDULE_MIN_INTERVAL: '2h',
    });
    await bot.start();
    expect(await send(schedule('every 1h x'))).toMatch(/at most every 2h here .*THREADLAB_SCHEDULE_MIN_INTERVAL/);
    expect(await send(schedule('every 2h rerun'))).toMatch(/no code that ran yet/);
    expect(await send(schedule('every 2h x'))).toMatch(/^Scheduled #1/);
    expect(await send(schedule('every 3h y'))).toMatch(/You have 1 schedules, the most one person may have/);
    expect(await send(schedule('every 3h y', 'u2'))).toMatch(/^Scheduled #2/);
    expect(await send(schedule('every 3h z', 'u3'))).toMatch(/This workspace has 2 schedules/);
    expect(await send(schedule('every day 09:00 TZ=Mars/Base x'))).toMatch(/Unknown time zone/);
  });

  it('refuses a new schedule once the deployment holds the most it lists', async () => {
    const { bot, scheduler, send } = setup();
    await bot.start();
    for (let i = 0; i < MAX_SCHEDULES_TOTAL; i += 1) {
      await scheduler.add({
        id: `sch-${i}`,
        threadKey: `discord:g${i}:c:t`,
        thread: { platform: 'discord', workspace: `g${i}`, channel: 'c', thread: 't' },
        creator: { id: `u${i}` },
        when: { kind: 'every', everyMs: HOUR },
        task: { kind: 'ask', text: 'x' },
        createdAtMs: i,
      });
    }
    expect(await send(schedule('every 2h x'))).toMatch(/already holds 20000 schedules, the most it keeps/);
  });

  it('refuses a re-run schedule from someone direct mode is closed to', async () => {
    const { bot, send } = setup({
      THREADLAB_ACCESS_DIRECT_USERS: 'discord:100000000000000009',
      THREADLAB_SCHEDULE_MIN_INTERVAL: '1m',
    });
    await bot.start();
    // u1 may ask, so a question can be scheduled; the notebook comes from someone who may run code.
    await send(message('```python\nprint(1)\n```', '100000000000000009'));
    expect(await send(schedule('every 1h rerun'))).toMatch(
      /You may not run code directly here, so you cannot schedule/,
    );
    expect(await send(schedule('every 1h how many?'))).toMatch(/^Scheduled #1/);
    expect(await send(schedule('every 1h rerun', '100000000000000009'))).toMatch(/^Scheduled #2/);
  });

  it('lists at most 50 schedules of a thread one by one, and counts the rest', async () => {
    const { bot, scheduler, send } = setup();
    await bot.start();
    for (let i = 0; i < 60; i += 1) {
      await scheduler.add({
        id: `sch-${i}`,
        threadKey: threadKey(thread),
        thread,
        creator: { id: `u${i}` },
        when: { kind: 'every', everyMs: HOUR },
        task: { kind: 'ask', text: `q${i}` },
        createdAtMs: i,
      });
    }
    const list = await send(schedule('list'));
    expect(list).toContain('Schedules in this thread (60):');
    expect(list).toContain('#50 every 1h: ask “q49”');
    expect(list).not.toContain('#51 every');
    expect(list).toContain('… and 10 more (#51 to #60).');
  });

  it('says so when schedules are off', async () => {
    const { bot, send } = setup({ THREADLAB_SCHEDULES: 'off' });
    await bot.start();
    expect(await send(schedule('every 2h x'))).toMatch(/turned off .*THREADLAB_SCHEDULES=off/);
  });

  it('stops once, saying so, when the creator lost access', async () => {
    const { bot, clock, scheduler, adapter, audit } = setup({
      THREADLAB_ACCESS_USERS: 'discord:100000000000000002',
    });
    await bot.start();
    const made: Schedule = {
      id: 'sch-access',
      threadKey: threadKey(thread),
      thread,
      creator: { id: 'u1', name: 'Ann' },
      when: { kind: 'every', everyMs: HOUR },
      task: { kind: 'ask', text: 'numbers?' },
      createdAtMs: clock.now(),
    };
    await scheduler.add(made);
    await clock.advance(HOUR);
    expect((await adapter.nextReply()).reply.text).toMatch(/by Ann has stopped: Ann no longer has access/);
    await clock.advance(5 * HOUR);
    await expect(adapter.nextReply(300)).rejects.toThrow(/no reply/);
    expect(await scheduler.get('sch-access')).toBeUndefined();
    expect(scheduleLines(audit)).toEqual([expect.objectContaining({ outcome: 'stopped_access', user: 'u1' })]);
  });

  it('stops once, saying so, when the creator’s budget is spent', async () => {
    const { bot, clock, send, adapter, audit } = setup({ THREADLAB_BUDGET_USER_DAILY_RUN_SECONDS: '1' }, () => ({
      stdout: 'slow\n',
      durationMs: 5000,
    }));
    await bot.start();
    await send(message('```python\nprint(1)\n```'));
    expect(await send(schedule('every 1h rerun'))).toMatch(/^Scheduled #1/);
    await clock.advance(HOUR + 1000);
    expect((await adapter.nextReply()).reply.text).toMatch(/has stopped: the daily budget of u1 is spent/);
    await clock.advance(3 * HOUR);
    await expect(adapter.nextReply(300)).rejects.toThrow(/no reply/);
    expect(scheduleLines(audit)).toEqual([expect.objectContaining({ outcome: 'stopped_budget' })]);
  });

  it('stops after three failed runs in a row, saying so once; a success in between resets the count', async () => {
    let fail = false;
    const { bot, clock, send, adapter, audit } = setup({}, () =>
      fail ? { status: 'error', error: { name: 'KeyError', value: "'price'", traceback: '' } } : { stdout: 'fine\n' },
    );
    await bot.start();
    await send(message('```python\nprint(df.price.sum())\n```'));
    expect(await send(schedule('every 1h rerun'))).toMatch(/^Scheduled #1/);
    const fire = async () => {
      await clock.advance(HOUR);
      return (await adapter.nextReply()).reply;
    };
    await clock.advance(1000);
    fail = true;
    expect((await fire()).kind).toBe('error');
    fail = false;
    expect((await fire()).kind).toBe('answer');
    fail = true;
    for (let i = 0; i < 3; i += 1) expect((await fire()).text).toContain('KeyError');
    expect((await adapter.nextReply()).reply.text).toMatch(/has stopped: its last 3 runs failed in a row/);
    await clock.advance(3 * HOUR);
    await expect(adapter.nextReply(300)).rejects.toThrow(/no reply/);
    expect(scheduleLines(audit).map((l) => (l as { failuresInRow: number }).failuresInRow)).toEqual([1, 0, 1, 2, 3]);
  });

  it('skips a due time while its thread is still busy, and counts no failure for it', async () => {
    let delayMs = 0;
    const { bot, clock, send, adapter, audit } = setup({}, () => ({ stdout: 'slow\n', delayMs }), {
      userMaxConcurrent: 1,
    });
    await startHourlyRerun(bot, send);
    delayMs = 400;
    await clock.advance(HOUR + 1000); // the first firing runs for 400 ms
    await clock.advance(HOUR); // the second finds it still running
    expect((await adapter.nextReply()).reply.text).toContain('Re-ran 1 of 1 cells');
    await expect(adapter.nextReply(600)).rejects.toThrow(/no reply/);
    expect(
      scheduleLines(audit)
        .map((l) => (l as { outcome: string }).outcome)
        .sort(),
    ).toEqual(['ok', 'skipped']);
  });

  it('fires while its creator is busy in another thread: firings are not charged to the creator', async () => {
    let delayMs = 0;
    const { bot, clock, send, adapter, audit } = setup({}, () => ({ stdout: 'ok\n', delayMs }), {
      userMaxConcurrent: 1,
      userMaxPerMinute: 3,
    });
    await startHourlyRerun(bot, send);
    delayMs = 500;
    // The creator's one job at a time and, with the two messages above, their last request of this minute.
    await adapter.handler!.onMessage(
      message('```python\nprint(2)\n```', 'u1', { thread: { ...thread, thread: 't9' } }),
    );
    await clock.advance(HOUR + 1000);
    const threads = [
      (await adapter.nextReply()).message.thread.thread,
      (await adapter.nextReply()).message.thread.thread,
    ];
    expect(threads.sort()).toEqual(['t1', 't9']);
    // The schedule's line is written once the run has settled, just after its reply.
    for (let i = 0; i < 50 && scheduleLines(audit).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(scheduleLines(audit)).toEqual([expect.objectContaining({ outcome: 'ok' })]);
    // The creator's own limit still holds for what they send.
    const refused = await adapter.handler!.onMessage(message('```python\nprint(3)\n```', 'u1'));
    expect(refused).toMatchObject({ accepted: false, reason: 'rate_limited' });
  });

  it('keeps the audit line of a firing whose schedule was cancelled while it ran (a cancel is answered at once)', async () => {
    let delayMs = 0;
    const { bot, clock, send, adapter, audit } = setup({}, () => ({ stdout: 'ok\n', delayMs }));
    await startHourlyRerun(bot, send);
    delayMs = 600;
    await clock.advance(HOUR + 1000);
    // The firing is running when its creator cancels the schedule.
    expect(await send(schedule('cancel 1'))).toMatch(/Cancelled schedule #1/);
    expect((await adapter.nextReply()).reply.text).toMatch(/^_Scheduled run \(every 1h\)/);
    for (let i = 0; i < 50 && scheduleLines(audit).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(scheduleLines(audit)).toEqual([expect.objectContaining({ outcome: 'ok', task: 'rerun', user: 'u1' })]);
  });

  it('skips a due time past the workspace’s schedule firings per minute (THREADLAB_SCHEDULE_MAX_FIRINGS_PER_MINUTE)', async () => {
    const { bot, clock, send, adapter, audit } = setup({}, () => ({ stdout: 'ok\n' }), {
      scheduleFiringsPerMinute: 1,
    });
    await startHourlyRerun(bot, send);
    const t2 = { ...thread, thread: 't2' };
    await send(message('```python\nprint(2)\n```', 'u2', { thread: t2 }));
    const made = await send(
      message('/schedule every 1h rerun', 'u2', { thread: t2, command: { name: 'schedule', text: 'every 1h rerun' } }),
    );
    expect(made).toMatch(/^Scheduled #1/);
    await clock.advance(HOUR + 1000);
    await adapter.nextReply();
    await expect(adapter.nextReply(400)).rejects.toThrow(/no reply/);
    expect(
      scheduleLines(audit)
        .map((l) => (l as { outcome: string }).outcome)
        .sort(),
    ).toEqual(['ok', 'skipped']);
  });

  it('removes a deleted thread’s schedules', async () => {
    const { bot, scheduler, send } = setup();
    await bot.start();
    expect(await send(schedule('every 2h what now?'))).toMatch(/^Scheduled #1/);
    const other = message('/schedule every 3h elsewhere?', 'u1', {
      thread: { ...thread, thread: 't2' },
      command: { name: 'schedule', text: 'every 3h elsewhere?' },
    });
    expect(await send(other)).toMatch(/^Scheduled #1/);
    await bot.onThreadDeleted(threadKey(thread));
    expect((await scheduler.list(10)).map((s) => s.thread.thread)).toEqual(['t2']);
  });
});
