import { afterEach, describe, expect, it } from 'vitest';
import { threadKey } from '../../../src/domain/thread-key.js';
import { MAX_SCHEDULES_TOTAL } from '../../../src/schedules/schedules.js';
import { HOUR, message, schedule, setup, stopScheduledBot, thread } from './scheduled-bot.js';

afterEach(stopScheduledBot);

// How a schedule fires, is skipped and stops: scheduled-runs.test.ts.
describe('Schedules made, listed, cancelled and refused through the Bot (fake sandbox, test clock)', () => {
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
