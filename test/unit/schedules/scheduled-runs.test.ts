import { afterEach, describe, expect, it } from 'vitest';
import type { Schedule } from '../../../src/domain/schedule.js';
import { threadKey } from '../../../src/domain/thread-key.js';
import {
  HOUR,
  message,
  schedule,
  scheduleLines,
  setup,
  startHourlyRerun,
  stopScheduledBot,
  thread,
} from './scheduled-bot.js';

afterEach(stopScheduledBot);

// Making, listing, cancelling and refusing schedules: schedule-management.test.ts.
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
});
